// from-container service translation: ClusterIP DNAT with valid bytes, rev-NAT of the reply, backend
// choice kept by conntrack, ClientIP affinity with its timeout, and the no-backend drop vs REJECT flag.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { NatApplied } from "../../../src/skb/skbuff.js";
import { IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP } from "../../../src/wire/checksum.js";
import { Verdict, Xlate } from "../../../datapath/ctx.js";
import { CT_VALUE_WORDS, CtTupleFlag, CtValue } from "../../../datapath/maps/conntrack.js";
import { ServiceFlag } from "../../../datapath/maps/lb.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { DropReason, TracePoint } from "../../../datapath/reasons.js";
import { fromContainer } from "../../../datapath/programs/lxc.js";
import {
  ACK, IF_A, IF_B, MAC_A, MAC_B, POD_A, POD_B, ROUTER_MAC, SYN, SYN_ACK, VIP,
  assertSkbValid, buildFrame, node1, run, skbOf, view, type Node,
} from "./fixtures.js";

const ALL = 0;

/** Opens every direction of every local endpoint's policy. */
function allowAll(node: Node): void {
  for (const policy of node.policies.values()) {
    policy.upsert(Direction.INGRESS, ALL, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
    policy.upsert(Direction.EGRESS, ALL, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
  }
}

function addService(node: Node, backends: [number, number][], flags = 0, timeout = 0, proto = IPPROTO_TCP): void {
  const lb = node.maps.lb;
  backends.forEach(([addr, port], i) => assert.equal(lb.upsertBackend(i + 1, addr, port, proto), 0));
  assert.equal(lb.upsertRevNat(7, VIP, 80), 0);
  assert.equal(
    lb.upsertService({ vip: VIP, port: 80, proto, revNatIndex: 7, flags, backendIds: backends.map((_, i) => i + 1), affinityTimeoutSec: timeout }),
    0,
  );
}

describe("from-container: ClusterIP", () => {
  it("DNATs to the backend, delivers to its veth with valid checksums, and records conntrack state", () => {
    const n = node1();
    allowAll(n);
    addService(n, [[POD_B, 8080]]);
    const skb = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 40000, dport: 80, tcpFlags: SYN }));
    const { verdict, events } = run(n, fromContainer, skb, { ifindex: IF_A });
    assert.equal(verdict, Verdict.REDIRECT);
    assert.equal(n.ctx.redirectIfindex, IF_B);
    assert.equal(n.ctx.redirectIngress, false);
    const v = view(skb);
    assert.deepEqual([v.src, v.dst, v.sport, v.dport, v.ttl], [POD_A, POD_B, 40000, 8080, 63]);
    assert.deepEqual([v.dstMac, v.srcMac], [MAC_B, ROUTER_MAC]);
    assertSkbValid(skb);
    // Oracle: the same packet built from scratch (full checksum computation) has identical IP+TCP bytes.
    const expected = buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_TCP, sport: 40000, dport: 8080, tcpFlags: SYN, ttl: 63, srcMac: ROUTER_MAC, dstMac: MAC_B });
    assert.deepEqual(skb.bytes(), expected);
    assert.equal(skb.natApplied & NatApplied.DNAT, NatApplied.DNAT);
    assert.deepEqual([skb.origDst, skb.origDstPort], [VIP, 80]);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.point, TracePoint.TO_ENDPOINT);
    assert.equal(events[0]!.xlate & Xlate.DNAT, Xlate.DNAT);
    assert.deepEqual(events[0]!.before, [POD_A, VIP, 40000, 80]);
    assert.deepEqual(events[0]!.after, [POD_A, POD_B, 40000, 8080]);

    const ct = n.maps.ct;
    const svc = ct.lookupV4(POD_A, VIP, 40000, 80, IPPROTO_TCP, CtTupleFlag.SERVICE);
    assert.ok(svc >= 0, "service entry on the frontend tuple");
    assert.equal(ct.values[svc * CT_VALUE_WORDS + CtValue.BACKEND_ID], 1);
    const out = ct.lookupV4(POD_A, POD_B, 40000, 8080, IPPROTO_TCP, CtTupleFlag.OUT);
    assert.ok(out >= 0, "egress entry on the backend tuple");
    assert.equal(ct.values[out * CT_VALUE_WORDS + CtValue.REV_NAT_INDEX], 7);
    assert.equal(ct.values[out * CT_VALUE_WORDS + CtValue.ORIG_DADDR], VIP);
    assert.ok(ct.lookupV4(POD_A, POD_B, 40000, 8080, IPPROTO_TCP, CtTupleFlag.IN) >= 0, "ingress entry at the backend");
  });

  it("reverse-translates the backend's reply to the service address", () => {
    const n = node1();
    allowAll(n);
    addService(n, [[POD_B, 8080]]);
    run(n, fromContainer, skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 40000, dport: 80, tcpFlags: SYN })), { ifindex: IF_A });
    const reply = skbOf(buildFrame({ src: POD_B, dst: POD_A, proto: IPPROTO_TCP, sport: 8080, dport: 40000, tcpFlags: SYN_ACK, srcMac: MAC_B }));
    const { verdict, events } = run(n, fromContainer, reply, { ifindex: IF_B });
    assert.equal(verdict, Verdict.REDIRECT);
    assert.equal(n.ctx.redirectIfindex, IF_A);
    const v = view(reply);
    assert.deepEqual([v.src, v.dst, v.sport, v.dport], [VIP, POD_A, 80, 40000]);
    assert.equal(v.dstMac, MAC_A);
    assertSkbValid(reply);
    assert.equal(events[0]!.xlate & Xlate.REV_DNAT, Xlate.REV_DNAT);
  });

  it("keeps an established flow on its backend whatever the random value, and spreads new flows", () => {
    const n = node1();
    allowAll(n);
    addService(n, [[POD_B, 8080], [POD_B, 8081]]);
    const first = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 41000, tcpFlags: SYN }));
    run(n, fromContainer, first, { ifindex: IF_A, random: 1 });
    const chosen = view(first).dport;
    for (let r = 2; r < 12; r++) {
      const again = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 41000, tcpFlags: ACK }));
      run(n, fromContainer, again, { ifindex: IF_A, random: r * 7919 });
      assert.equal(view(again).dport, chosen, `random ${r * 7919} must not move the flow`);
    }
    const ports = new Set<number>();
    for (let f = 0; f < 16; f++) {
      const skb = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 42000 + f, tcpFlags: SYN }));
      run(n, fromContainer, skb, { ifindex: IF_A, random: f * 2654435761 });
      ports.add(view(skb).dport);
    }
    assert.deepEqual([...ports].sort(), [8080, 8081]);
  });

  it("ClientIP affinity keeps new flows of a client on one backend until the timeout", () => {
    const n = node1();
    allowAll(n);
    addService(n, [[POD_B, 8080], [POD_B, 8081]], ServiceFlag.AFFINITY, 10);
    const t0 = 5_000_000_000;
    const first = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 43000, tcpFlags: SYN }));
    run(n, fromContainer, first, { ifindex: IF_A, random: 3, now: t0 });
    const sticky = view(first).dport;
    for (let f = 1; f <= 8; f++) {
      const skb = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 43000 + f, tcpFlags: SYN }));
      run(n, fromContainer, skb, { ifindex: IF_A, random: f * 2654435761, now: t0 + f * 1_000_000_000 });
      assert.equal(view(skb).dport, sticky, "within the timeout of the last use");
    }
    // 10 s after the last use (t0 + 8 s) the affinity is gone: some new flow lands elsewhere.
    const later = t0 + 18_000_000_000;
    const seen = new Set<number>();
    for (let f = 0; f < 8; f++) {
      const skb = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 44000 + f, tcpFlags: SYN }));
      run(n, fromContainer, skb, { ifindex: IF_A, random: f * 2654435761 + 1, now: later + f });
      seen.add(view(skb).dport);
      n.maps.lb.affinity.clear(); // each probe is a fresh choice after expiry
    }
    assert.equal(seen.size, 2);
  });

  it("a service without backends drops with NO_SERVICE", () => {
    const n = node1();
    allowAll(n);
    addService(n, []);
    const skb = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, tcpFlags: SYN }));
    const { verdict, events } = run(n, fromContainer, skb, { ifindex: IF_A });
    assert.equal(verdict, Verdict.DROP);
    assert.equal(n.ctx.dropReason, DropReason.NO_SERVICE);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.reason, 158);
    assert.equal(events[0]!.site, "datapath/lxc:from-container:service");
  });

  it("with REJECT_NO_BACKEND answers ICMP port unreachable back into the pod instead", () => {
    const n = node1();
    allowAll(n);
    addService(n, [], ServiceFlag.REJECT_NO_BACKEND, 0, IPPROTO_UDP);
    const original = buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_UDP, sport: 5353, dport: 80, payload: 100 });
    const skb = skbOf(original);
    const { verdict, events } = run(n, fromContainer, skb, { ifindex: IF_A });
    assert.equal(verdict, Verdict.REDIRECT);
    assert.equal(n.ctx.redirectIfindex, IF_A);
    const v = view(skb);
    assert.deepEqual([v.src, v.dst, v.proto, v.hdr.icmpType, v.hdr.icmpCode, v.ttl], [VIP, POD_A, IPPROTO_ICMP, 3, 3, 64]);
    assert.deepEqual([v.dstMac, v.srcMac], [MAC_A, ROUTER_MAC]);
    assertSkbValid(skb);
    // RFC 792 quote: the original datagram from its IP header, 64 bytes of it (Cilium's sample size).
    const quoted = skb.bytes().subarray(14 + 20 + 8);
    assert.deepEqual(quoted, original.subarray(14, 14 + 64));
    assert.equal(v.hdr.ipTotalLen, 20 + 8 + 64);
    assert.equal(events[0]!.xlate & Xlate.REJECT, Xlate.REJECT);
  });
});
