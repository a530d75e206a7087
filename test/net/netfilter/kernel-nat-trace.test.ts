// Replays packets recorded around a real Linux router doing DNAT + MASQUERADE (kernel-fixtures.ts)
// through the model: every forwarded packet must come out byte for byte as the kernel sent it
// (addresses, ports, IP/TCP/UDP/ICMP checksums, the ICMP error's quoted header), and the conntrack
// entry must pass through the kernel's states, flags and timeouts in the kernel's order.

import { test } from "node:test";
import assert from "node:assert/strict";
import { NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { formatConntrackEntry } from "../../../src/net/netfilter/conntrack/listing.js";
import type { NetDevice } from "../../../src/net/device.js";
import { FRAGMENT_TRACE, NAT_EVENTS, NAT_LIST, NAT_TRACE } from "./kernel-fixtures.js";
import { TestHost, forward, fromHex, hex } from "./helpers.js";

function routerWithKernelRules(): { host: TestHost; devs: Map<string, NetDevice> } {
  const host = new TestHost();
  const devs = new Map<string, NetDevice>([
    ["r0", host.addDevice("nfh-r0", "10.99.1.1/24")],
    ["r1", host.addDevice("nfh-r1", "10.99.2.1/24")],
  ]);
  const nat = host.netfilter.table("nat");
  const rules = [
    { dst: "10.99.3.3/32", proto: "tcp", dport: 80, target: { kind: "DNAT", to: "10.99.2.2:8080" } },
    { dst: "10.99.3.3/32", proto: "udp", dport: 53, target: { kind: "DNAT", to: "10.99.2.2:5353" } },
    { dst: "10.99.3.3/32", proto: "udp", dport: 54, target: { kind: "DNAT", to: "10.99.2.2:5454" } },
  ] as const;
  for (const r of rules) assert.ok(nat.append("PREROUTING", r).ok);
  assert.ok(nat.append("POSTROUTING", { outIface: "nfh-r1", target: { kind: "MASQUERADE" } }).ok);
  return { host, devs };
}

/** An event line as `conntrack -E` prints it, without the [NEW]/[UPDATE] tag. */
const eventBody = (line: string): string => line.replace(/^\s*\[[A-Z]+\]\s+/, "");
const listBody = (line: string): string => line.replace(/ mark=0 use=1$/, "");

test("forwarded packets leave with the kernel's exact bytes (DNAT, MASQUERADE, reverse NAT, ICMP error)", () => {
  const { host, devs } = routerWithKernelRules();
  assert.equal(NAT_TRACE.length, 16);
  NAT_TRACE.forEach((step, n) => {
    const skb = host.packet(fromHex(step.input));
    const v = forward(host.netfilter, skb, devs.get(step.inDev)!, devs.get(step.outDev)!);
    assert.equal(v, NfVerdict.ACCEPT, `step ${n} verdict`);
    assert.equal(hex(skb.bytes()), step.output, `step ${n} (${step.inDev} -> ${step.outDev}) bytes`);
  });
});

test("conntrack goes through the kernel's event sequence and ends with the kernel's table", () => {
  const { host, devs } = routerWithKernelRules();
  const ct = host.netfilter.conntrack;
  const seen = new Map<number, string>();
  const events: string[] = [];
  for (const step of NAT_TRACE) {
    forward(host.netfilter, host.packet(fromHex(step.input)), devs.get(step.inDev)!, devs.get(step.outDev)!);
    for (const e of ct.entries()) {
      const view = listBody(formatConntrackEntry(e));
      const key = view.replace(/^(\S+\s+\d+)\s+\d+/, "$1");
      if (seen.get(e.index) !== key) {
        seen.set(e.index, key);
        events.push(view);
      }
    }
  }
  assert.deepEqual(events, NAT_EVENTS.map(eventBody));
  // The kernel listed a few ms later (118 s / 29 s left); the model's clock has not moved.
  const normalize = (l: string): string => l.replace(/^(\S+\s+\d+)\s+\d+/, "$1 T");
  assert.deepEqual(ct.list().split("\n").map(normalize).sort(), NAT_LIST.map(normalize).sort());
  assert.match(ct.list(), /^tcp {6}6 120 TIME_WAIT /m);
});

test("fragments are NATed one by one exactly as the kernel's reassemble-NAT-refragment leaves them", () => {
  const { host, devs } = routerWithKernelRules();
  assert.equal(FRAGMENT_TRACE.length, 8);
  FRAGMENT_TRACE.forEach((step, n) => {
    const skb = host.packet(fromHex(step.input));
    const v = forward(host.netfilter, skb, devs.get(step.inDev)!, devs.get(step.outDev)!);
    assert.equal(v, NfVerdict.ACCEPT, `fragment step ${n} verdict`);
    assert.equal(hex(skb.bytes()), step.output, `fragment step ${n} (${step.inDev} -> ${step.outDev}) bytes`);
  });
  const entries = host.netfilter.conntrack.entries();
  assert.deepEqual(entries.map((e) => [e.protoName, e.unreplied]), [["udp", true], ["icmp", false]]);
});
