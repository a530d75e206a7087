// Headers carried from one hook to the next for the same packet (header-carry.ts): the later hooks
// decide exactly as a fresh parse would, also when the bytes changed between the hooks (an in-place
// rewrite of an identity field, a PROGRAM that wrote the packet) or another packet ran in between.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import type { Netfilter } from "../../../src/net/netfilter/netfilter.js";
import { ProgramVerdict } from "../../../src/net/netfilter/table/spec.js";
import type { SkBuff } from "../../../src/skb/skbuff.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { TCP, TestHost, decreaseTtl, forward, tcpSeg } from "./helpers.js";

function router(): { host: TestHost; nf: Netfilter; lan: ReturnType<TestHost["addDevice"]>; wan: ReturnType<TestHost["addDevice"]> } {
  const host = new TestHost({ conntrackMode: "on" });
  const lan = host.addDevice("lan0", "10.0.1.1/24");
  const wan = host.addDevice("wan0", "10.0.2.1/24");
  return { host, nf: host.netfilter, lan, wan };
}

/** Writes a new TCP source port in place, every checksum redone (an in-place rewrite the carry must notice). */
function rewriteSourcePort(skb: SkBuff, port: number): void {
  const b = skb.data;
  const at = skb.head;
  b[at + 20] = port >>> 8;
  b[at + 21] = port & 0xff;
  const src = ((b[at + 12]! << 24) | (b[at + 13]! << 16) | (b[at + 14]! << 8) | b[at + 15]!) >>> 0;
  const dst = ((b[at + 16]! << 24) | (b[at + 17]! << 16) | (b[at + 18]! << 8) | b[at + 19]!) >>> 0;
  setL4ChecksumV4(b, at + 20, skb.tail - at - 20, 6, src, dst);
  setIpv4HeaderChecksum(b, at, 20);
}

/** The same hooks, each on a fresh SkBuff of the packet's bytes and facts (no carry can apply). */
function forwardFresh(host: TestHost, bytes: Uint8Array, inDev: Parameters<typeof forward>[2], outDev: Parameters<typeof forward>[3]): { verdict: number; mark: number } {
  const nf = host.netfilter;
  let skb = host.packet(bytes.slice());
  let v = nf.run(NfHook.PREROUTING, skb, inDev, null);
  const next = (): SkBuff => {
    const copy = host.packet(skb.data.slice(skb.head, skb.tail));
    copy.ctEntry = skb.ctEntry;
    copy.ctState = skb.ctState;
    copy.mark = skb.mark;
    return copy;
  };
  if (v === NfVerdict.ACCEPT) {
    decreaseTtl(skb.data, skb.head);
    skb = next();
    v = nf.run(NfHook.FORWARD, skb, inDev, outDev);
  }
  if (v === NfVerdict.ACCEPT) {
    skb = next();
    v = nf.run(NfHook.POSTROUTING, skb, inDev, outDev);
  }
  return { verdict: v, mark: skb.mark };
}

function rules(nf: Netfilter): void {
  const filter = nf.table("filter");
  const mangle = nf.table("mangle");
  assert.ok(mangle.append("POSTROUTING", { proto: "tcp", dport: 80, target: { kind: "MARK", value: 0x10, mask: 0x10 } }).ok);
  assert.ok(filter.append("FORWARD", { proto: "tcp", sport: 4000, target: { kind: "DROP" } }).ok);
  assert.ok(filter.append("FORWARD", { proto: "tcp", tcpFlags: { mask: TCP.FIN, comp: TCP.FIN }, target: { kind: "DROP" } }).ok);
  assert.ok(filter.append("FORWARD", { ctstate: { states: ["NEW", "ESTABLISHED"] }, target: { kind: "MARK", value: 0x1, mask: 0x1 } }).ok);
}

test("carried headers give the verdicts, marks and counters a fresh parse per hook gives", () => {
  const carried = router();
  const fresh = router();
  rules(carried.nf);
  rules(fresh.nf);
  for (let k = 0; k < 6; k++) {
    for (const sport of [1500, 4000]) {
      const flags = k === 0 ? TCP.SYN : k === 5 ? TCP.ACK | TCP.FIN : TCP.ACK;
      const bytes = tcpSeg("10.0.1.2", sport, "10.0.2.2", 80, flags, { seq: 1000 + k, ack: k === 0 ? 0 : 1 });
      const skb = carried.host.packet(bytes.slice());
      const v = forward(carried.nf, skb, carried.lan, carried.wan);
      const want = forwardFresh(fresh.host, bytes, fresh.lan, fresh.wan);
      assert.deepEqual({ verdict: v, mark: skb.mark }, want, `round ${k} sport ${sport}`);
    }
  }
  assert.equal(carried.nf.save(true), fresh.nf.save(true));
});

test("a source port rewritten in place between hooks is seen by the next hook", () => {
  const { host, nf, lan, wan } = router();
  rules(nf);
  const established = (): SkBuff => host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.ACK, { seq: 1001, ack: 1 }));
  assert.equal(forward(nf, established(), lan, wan), NfVerdict.ACCEPT);
  const skb = established();
  assert.equal(nf.run(NfHook.PREROUTING, skb, lan, null), NfVerdict.ACCEPT);
  rewriteSourcePort(skb, 4000);
  assert.equal(nf.run(NfHook.FORWARD, skb, lan, wan), NfVerdict.DROP, "FORWARD matched the new port");
});

test("a PROGRAM that writes the packet makes the next hook parse it again", () => {
  const { host, nf, lan, wan } = router();
  rules(nf);
  let writes = 0;
  const setFin = (skb: SkBuff): number => {
    writes++;
    skb.data[skb.head + 33] = skb.data[skb.head + 33]! | TCP.FIN;
    return ProgramVerdict.CONTINUE;
  };
  assert.ok(nf.table("raw").append("PREROUTING", { proto: "tcp", dport: 81, target: { kind: "PROGRAM", name: "fin", run: setFin } }).ok);
  const skb = host.packet(tcpSeg("10.0.1.2", 1600, "10.0.2.2", 81, TCP.SYN));
  assert.equal(nf.run(NfHook.PREROUTING, skb, lan, null), NfVerdict.ACCEPT);
  assert.equal(writes, 1);
  assert.equal(nf.run(NfHook.FORWARD, skb, lan, wan), NfVerdict.DROP, "FORWARD saw the FIN the program set");
});

test("another packet's hook in between leaves the first packet's next hook its own headers", () => {
  const { host, nf, lan, wan } = router();
  rules(nf);
  const first = host.packet(tcpSeg("10.0.1.2", 4000, "10.0.2.2", 80, TCP.SYN));
  const other = host.packet(tcpSeg("10.0.1.3", 1500, "10.0.2.2", 80, TCP.SYN));
  assert.equal(nf.run(NfHook.PREROUTING, first, lan, null), NfVerdict.ACCEPT);
  assert.equal(nf.run(NfHook.PREROUTING, other, lan, null), NfVerdict.ACCEPT);
  assert.equal(nf.run(NfHook.FORWARD, first, lan, wan), NfVerdict.DROP, "sport 4000 is dropped");
  assert.equal(nf.run(NfHook.FORWARD, other, lan, wan), NfVerdict.ACCEPT);
});
