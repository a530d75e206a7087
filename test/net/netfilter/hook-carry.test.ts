// The carry from one hook to the next for the same packet (hook-carry.ts): a continued FORWARD,
// POSTROUTING or INPUT decides exactly as one that parses and loads the entry again, also after the events
// that must stop the carry (a target ran, an entry was bound or confirmed, another packet ran in
// between, a NAT rewrite), and the carry is really taken when it may be.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import type { Netfilter } from "../../../src/net/netfilter/netfilter.js";
import { ProgramVerdict } from "../../../src/net/netfilter/table/spec.js";
import type { NetDevice } from "../../../src/net/device.js";
import type { SkBuff } from "../../../src/skb/skbuff.js";
import { TCP, TestHost, decreaseTtl, tcpSeg } from "./helpers.js";

interface Router {
  readonly host: TestHost;
  readonly nf: Netfilter;
  readonly lan: NetDevice;
  readonly wan: NetDevice;
}

function router(): Router {
  const host = new TestHost({ conntrackMode: "on" });
  const lan = host.addDevice("lan0", "10.0.1.1/24");
  const wan = host.addDevice("wan0", "10.0.2.1/24");
  return { host, nf: host.netfilter, lan, wan };
}

/** ip_forward's hooks; continued as the stack passes it (true) or never (every hook parses). */
function pass(r: Router, skb: SkBuff, inDev: NetDevice, outDev: NetDevice, continued: boolean): number {
  let v = r.nf.run(NfHook.PREROUTING, skb, inDev, null);
  if (v !== NfVerdict.ACCEPT) return v;
  decreaseTtl(skb.data, skb.head);
  v = r.nf.run(NfHook.FORWARD, skb, inDev, outDev, continued);
  if (v !== NfVerdict.ACCEPT) return v;
  return r.nf.run(NfHook.POSTROUTING, skb, inDev, outDev, continued);
}

function rules(nf: Netfilter): void {
  const filter = nf.table("filter");
  const mangle = nf.table("mangle");
  const nat = nf.table("nat");
  assert.ok(mangle.append("POSTROUTING", { proto: "tcp", dport: 80, target: { kind: "MARK", value: 0x10, mask: 0x10 } }).ok);
  assert.ok(mangle.append("FORWARD", { proto: "tcp", sport: 8080, target: { kind: "MARK", value: 0x20, mask: 0x20 } }).ok);
  assert.ok(filter.append("FORWARD", { proto: "tcp", sport: 4000, target: { kind: "DROP" } }).ok);
  assert.ok(filter.append("FORWARD", { proto: "tcp", tcpFlags: { mask: TCP.FIN, comp: TCP.FIN }, target: { kind: "DROP" } }).ok);
  assert.ok(filter.append("FORWARD", { ctstate: { states: ["NEW", "ESTABLISHED"] }, target: { kind: "MARK", value: 0x1, mask: 0x1 } }).ok);
  assert.ok(filter.append("FORWARD", { mark: { value: 0x20, mask: 0x20 }, target: { kind: "MARK", value: 0x2, mask: 0x2 } }).ok);
  // A service address DNATed at PREROUTING and the flow MASQUERADEd at POSTROUTING: rewrites at both ends.
  assert.ok(nat.append("PREROUTING", { proto: "tcp", dst: "10.0.9.9/32", dport: 80, target: { kind: "DNAT", to: "10.0.2.2:8080" } }).ok);
  assert.ok(nat.append("POSTROUTING", { outIface: "wan0", target: { kind: "MASQUERADE" } }).ok);
}

test("continued hooks give the verdicts, marks, bytes and counters of hooks that parse again", () => {
  const carried = router();
  const fresh = router();
  rules(carried.nf);
  rules(fresh.nf);
  for (let k = 0; k < 8; k++) {
    for (const [dst, sport, dport] of [["10.0.2.2", 1500, 80], ["10.0.2.2", 4000, 80], ["10.0.9.9", 1600, 80], ["10.0.2.3", 1700, 22]] as const) {
      const flags = k === 0 ? TCP.SYN : k === 7 ? TCP.ACK | TCP.FIN : TCP.ACK;
      const bytes = tcpSeg("10.0.1.2", sport, dst, dport, flags, { seq: 1000 + k, ack: k === 0 ? 0 : 1 });
      const a = carried.host.packet(bytes.slice());
      const b = fresh.host.packet(bytes.slice());
      const va = pass(carried, a, carried.lan, carried.wan, true);
      const vb = pass(fresh, b, fresh.lan, fresh.wan, false);
      const where = `round ${k} ${dst}:${dport} from ${sport}`;
      assert.deepEqual({ verdict: va, mark: a.mark, natApplied: a.natApplied }, { verdict: vb, mark: b.mark, natApplied: b.natApplied }, where);
      assert.deepEqual(a.data.slice(a.head, a.tail), b.data.slice(b.head, b.tail), where);
    }
    // The server's answers come back through the same hooks (reply direction, un-NAT at both ends).
    for (const [src, sport] of [["10.0.2.2", 80], ["10.0.2.2", 8080]] as const) {
      const bytes = tcpSeg(src, sport, "10.0.2.1", 1600, TCP.ACK, { seq: 5000 + k, ack: 1001 });
      const a = carried.host.packet(bytes.slice());
      const b = fresh.host.packet(bytes.slice());
      assert.equal(pass(carried, a, carried.wan, carried.lan, true), pass(fresh, b, fresh.wan, fresh.lan, false));
      assert.deepEqual(a.data.slice(a.head, a.tail), b.data.slice(b.head, b.tail));
      assert.equal(a.mark, b.mark);
    }
  }
  assert.equal(carried.nf.save(true), fresh.nf.save(true));
  assert.equal(carried.nf.conntrack.table.count, fresh.nf.conntrack.table.count);
});

/** An established flow through the router (SYN, SYN-ACK), so its later packets take the carry. */
function established(r: Router): void {
  assert.equal(pass(r, r.host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.SYN)), r.lan, r.wan, true), NfVerdict.ACCEPT);
  assert.equal(pass(r, r.host.packet(tcpSeg("10.0.2.2", 80, "10.0.1.2", 1500, TCP.SYN | TCP.ACK, { ack: 1 })), r.wan, r.lan, true), NfVerdict.ACCEPT);
}

/** Sets the FIN flag in place (the checksum is not what the hooks look at here). */
function setFin(skb: SkBuff): void {
  skb.data[skb.head + 33] = skb.data[skb.head + 33]! | TCP.FIN;
}

test("the carry is taken: a change the caller does not announce stays unseen, an uncontinued run sees it", () => {
  for (const continued of [true, false]) {
    const r = router();
    rules(r.nf);
    established(r);
    const skb = r.host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.ACK, { seq: 1, ack: 1 }));
    assert.equal(r.nf.run(NfHook.PREROUTING, skb, r.lan, null), NfVerdict.ACCEPT);
    setFin(skb);
    const want = continued ? NfVerdict.ACCEPT : NfVerdict.DROP;
    assert.equal(r.nf.run(NfHook.FORWARD, skb, r.lan, r.wan, continued), want, `continued ${continued}`);
  }
});

test("a PROGRAM that ran at the previous hook stops the carry (it may have written the packet)", () => {
  const r = router();
  rules(r.nf);
  established(r);
  let writes = 0;
  const program = (skb: SkBuff): number => {
    writes++;
    setFin(skb);
    return ProgramVerdict.CONTINUE;
  };
  assert.ok(r.nf.table("raw").append("PREROUTING", { proto: "tcp", dport: 80, target: { kind: "PROGRAM", name: "fin", run: program } }).ok);
  const skb = r.host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.ACK, { seq: 1, ack: 1 }));
  assert.equal(r.nf.run(NfHook.PREROUTING, skb, r.lan, null), NfVerdict.ACCEPT);
  assert.equal(writes, 1);
  assert.equal(r.nf.run(NfHook.FORWARD, skb, r.lan, r.wan, true), NfVerdict.DROP, "FORWARD saw the FIN the program set");
});

test("another packet's hook in between stops the carry", () => {
  const r = router();
  rules(r.nf);
  established(r);
  const first = r.host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.ACK, { seq: 1, ack: 1 }));
  const other = r.host.packet(tcpSeg("10.0.1.3", 1500, "10.0.2.2", 80, TCP.SYN));
  assert.equal(r.nf.run(NfHook.PREROUTING, first, r.lan, null), NfVerdict.ACCEPT);
  setFin(first);
  assert.equal(r.nf.run(NfHook.PREROUTING, other, r.lan, null), NfVerdict.ACCEPT);
  assert.equal(r.nf.run(NfHook.FORWARD, first, r.lan, r.wan, true), NfVerdict.DROP, "FORWARD parsed the first packet again");
  assert.equal(r.nf.run(NfHook.FORWARD, other, r.lan, r.wan, true), NfVerdict.ACCEPT);
});

test("the carry belongs to the packet (its ledger id): another packet with the same offsets and entry parses again", () => {
  const r = router();
  rules(r.nf);
  established(r);
  const first = r.host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.ACK, { seq: 1, ack: 1 }));
  assert.equal(r.nf.run(NfHook.PREROUTING, first, r.lan, null), NfVerdict.ACCEPT);
  // Same head, tail, conntrack entry and state as the packet the carry was kept for; only the id differs.
  const copy = first.clone(r.host.world.ledger.admit());
  assert.deepEqual([copy.head, copy.tail, copy.ctEntry, copy.ctState], [first.head, first.tail, first.ctEntry, first.ctState]);
  setFin(copy);
  assert.equal(r.nf.run(NfHook.FORWARD, copy, r.lan, r.wan, true), NfVerdict.DROP, "FORWARD parsed the copy and saw its FIN");
});

test("a hook that confirmed the entry or bound NAT keeps no carry (the entry's status changed)", () => {
  const r = router();
  rules(r.nf);
  // A new flow: PREROUTING binds NAT (null binding), POSTROUTING confirms; neither leaves a carry.
  const syn = r.host.packet(tcpSeg("10.0.1.2", 1500, "10.0.2.2", 80, TCP.SYN));
  assert.equal(r.nf.run(NfHook.PREROUTING, syn, r.lan, null), NfVerdict.ACCEPT);
  setFin(syn);
  assert.equal(r.nf.run(NfHook.FORWARD, syn, r.lan, r.wan, true), NfVerdict.DROP, "no carry after the NAT binding");
  const next = r.host.packet(tcpSeg("10.0.1.2", 1501, "10.0.2.2", 80, TCP.SYN));
  assert.equal(pass(r, next, r.lan, r.wan, true), NfVerdict.ACCEPT);
  assert.ok(r.nf.entryOf(next) >= 0);
  assert.ok(r.nf.conntrack.table.confirmed(r.nf.entryOf(next)));
});

/** ip_local_deliver's hooks: PREROUTING, then INPUT continued as localDeliver passes it (or never). */
function localPass(r: Router, skb: SkBuff, continued: boolean): number {
  const v = r.nf.run(NfHook.PREROUTING, skb, r.lan, null);
  if (v !== NfVerdict.ACCEPT) return v;
  return r.nf.run(NfHook.INPUT, skb, r.lan, null, continued);
}

test("a continued INPUT decides as one that parses again, for new, established and dropped packets", () => {
  const carried = router();
  const fresh = router();
  for (const r of [carried, fresh]) {
    const filter = r.nf.table("filter");
    const mangle = r.nf.table("mangle");
    assert.ok(mangle.append("INPUT", { proto: "tcp", dport: 22, target: { kind: "MARK", value: 0x4, mask: 0x4 } }).ok);
    assert.ok(filter.append("INPUT", { proto: "tcp", dport: 23, target: { kind: "DROP" } }).ok);
    assert.ok(filter.append("INPUT", { ctstate: { states: ["ESTABLISHED"] }, target: { kind: "MARK", value: 0x1, mask: 0x1 } }).ok);
    assert.ok(filter.append("INPUT", { mark: { value: 0x4, mask: 0x4 }, target: { kind: "ACCEPT" } }).ok);
  }
  for (let k = 0; k < 6; k++) {
    for (const [sport, dport] of [[1500, 22], [1501, 23], [1502, 80]] as const) {
      const flags = k === 0 ? TCP.SYN : TCP.ACK;
      const bytes = tcpSeg("10.0.1.2", sport, "10.0.1.1", dport, flags, { seq: 1000 + k, ack: k === 0 ? 0 : 1 });
      const a = carried.host.packet(bytes.slice());
      const b = fresh.host.packet(bytes.slice());
      const where = `round ${k} port ${dport}`;
      assert.equal(localPass(carried, a, true), localPass(fresh, b, false), where);
      assert.equal(a.mark, b.mark, where);
      assert.equal(a.ctState, b.ctState, where);
    }
    // The host's answers leave through OUTPUT and POSTROUTING, so later packets are ESTABLISHED.
    const answer = tcpSeg("10.0.1.1", 22, "10.0.1.2", 1500, TCP.SYN | TCP.ACK, { ack: 1001 });
    for (const r of [carried, fresh]) {
      const skb = r.host.packet(answer.slice());
      assert.equal(r.nf.run(NfHook.OUTPUT, skb, null, r.lan), NfVerdict.ACCEPT);
      assert.equal(r.nf.run(NfHook.POSTROUTING, skb, null, r.lan, true), NfVerdict.ACCEPT);
    }
  }
  assert.equal(carried.nf.save(true), fresh.nf.save(true));
  assert.equal(carried.nf.conntrack.table.count, fresh.nf.conntrack.table.count);
});
