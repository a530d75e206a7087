// from-netdev NodePort: a local backend (client address kept, reply routed back via the FIB), a remote
// backend reached through the VXLAN tunnel keeping the client address with the reply returning through the
// tunnel (Calico eBPF), the SNAT mode (Cilium's default), and the no-backend REJECT out of the uplink.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IPPROTO_TCP, IPPROTO_UDP } from "../../../src/wire/checksum.js";
import { TunnelKind } from "../../../src/wire/headers.js";
import { Verdict, Xlate } from "../../../datapath/ctx.js";
import { EncapKind, NodePortMode } from "../../../datapath/lib/config.js";
import { CT_VALUE_WORDS, CtFlag, CtTupleFlag, CtValue } from "../../../datapath/maps/conntrack.js";
import { ServiceFlag } from "../../../datapath/maps/lb.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { DropReason, TracePoint } from "../../../datapath/reasons.js";
import { fromNetdev } from "../../../datapath/programs/host.js";
import { fromContainer } from "../../../datapath/programs/lxc.js";
import {
  ACK, CLIENT, CLIENT_MAC, ID_A, ID_C, IF_A, IF_C, MAC_A, MAC_C, N1, N1_MAC, N2, N2_MAC, POD_A, POD_C, SYN, SYN_ACK, UPLINK,
  assertSkbValid, buildFrame, node1, node2, run, skbOf, view, type Node,
} from "./fixtures.js";

const NODEPORT = 30080;
const TCP = IPPROTO_TCP;

/**
 * NodePort 30080 on every node address (vip 0) -> backend addr:8080, reject flag optional. Its rev-NAT
 * address is 0 too: replies leave from the node address the client used.
 */
function nodePortService(n: Node, backend: number | null, flags = 0): void {
  const lb = n.maps.lb;
  if (backend !== null) assert.equal(lb.upsertBackend(1, backend, 8080, TCP), 0);
  assert.equal(lb.upsertRevNat(9, 0, NODEPORT), 0);
  assert.equal(
    lb.upsertService({ vip: 0, port: NODEPORT, proto: TCP, revNatIndex: 9, flags: ServiceFlag.NODEPORT | flags, backendIds: backend === null ? [] : [1] }),
    0,
  );
}

function allowWorldTo8080(n: Node, pod: number): void {
  const p = n.policies.get(pod)!;
  assert.equal(p.upsert(Direction.INGRESS, 2, TCP, 8080, 8080, PolicyVerdict.ALLOW, 41), 0);
  assert.equal(p.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 42), 0);
}

const clientSyn = (dst: number, sport = 50000, dstMac = N1_MAC) =>
  skbOf(buildFrame({ src: CLIENT, dst, proto: TCP, sport, dport: NODEPORT, tcpFlags: SYN, srcMac: CLIENT_MAC, dstMac }));

describe("from-netdev: NodePort with a local backend", () => {
  it("delivers to the backend with the client address kept; the reply leaves via the FIB as the NodePort", () => {
    const n = node1();
    nodePortService(n, POD_A);
    allowWorldTo8080(n, POD_A);
    const req = clientSyn(N1);
    const first = run(n, fromNetdev, req, { ifindex: UPLINK, devMac: N1_MAC });
    assert.equal(first.verdict, Verdict.REDIRECT);
    assert.equal(n.ctx.redirectIfindex, IF_A);
    const v = view(req);
    assert.deepEqual([v.src, v.dst, v.dport, v.ttl, v.dstMac], [CLIENT, POD_A, 8080, 63, MAC_A]);
    assertSkbValid(req);
    assert.deepEqual([first.events[0]!.srcIdentity, first.events[0]!.dstIdentity], [2, ID_A], "backend policy saw the world client");

    const reply = skbOf(buildFrame({ src: POD_A, dst: CLIENT, proto: TCP, sport: 8080, dport: 50000, tcpFlags: SYN_ACK, srcMac: MAC_A }));
    const back = run(n, fromContainer, reply, { ifindex: IF_A });
    assert.equal(back.verdict, Verdict.REDIRECT);
    assert.equal(n.ctx.redirectIfindex, UPLINK);
    const r = view(reply);
    assert.deepEqual([r.src, r.sport, r.dst, r.dport, r.ttl], [N1, NODEPORT, CLIENT, 50000, 63]);
    assert.deepEqual([r.srcMac, r.dstMac], [N1_MAC, CLIENT_MAC]);
    assertSkbValid(reply);
    assert.equal(back.events[0]!.point, TracePoint.TO_NETWORK);
  });

  it("refuses the client when the backend's ingress policy does not admit the world", () => {
    const n = node1();
    nodePortService(n, POD_A);
    const { verdict, events } = run(n, fromNetdev, clientSyn(N1), { ifindex: UPLINK, devMac: N1_MAC });
    assert.equal(verdict, Verdict.DROP);
    assert.equal(events[0]!.reason, DropReason.POLICY_DENIED);
    assert.equal(events[0]!.policy?.peerIp, CLIENT);
    assert.deepEqual(events[0]!.before, [CLIENT, N1, 50000, NODEPORT]);
    assert.deepEqual(events[0]!.after, [CLIENT, POD_A, 50000, 8080]);
  });

  it("without backends drops with NO_SERVICE, or with the reject flag answers ICMP out of the uplink", () => {
    const dropper = node1();
    nodePortService(dropper, null);
    const dropped = run(dropper, fromNetdev, clientSyn(N1), { ifindex: UPLINK });
    assert.equal(dropped.verdict, Verdict.DROP);
    assert.equal(dropped.events[0]!.reason, 158);
    const rejecter = node1();
    nodePortService(rejecter, null, ServiceFlag.REJECT_NO_BACKEND);
    const skb = clientSyn(N1);
    const rejected = run(rejecter, fromNetdev, skb, { ifindex: UPLINK });
    assert.equal(rejected.verdict, Verdict.REDIRECT);
    assert.equal(rejecter.ctx.redirectIfindex, UPLINK);
    const v = view(skb);
    assert.deepEqual([v.src, v.dst, v.hdr.icmpType, v.hdr.icmpCode, v.dstMac, v.srcMac], [N1, CLIENT, 3, 3, CLIENT_MAC, N1_MAC]);
    assertSkbValid(skb);
  });
});

describe("from-netdev: NodePort with a remote backend", () => {
  it("TUNNEL mode: VXLAN to the backend's node keeping the client, reply back through the tunnel", () => {
    const cfg = { encap: EncapKind.VXLAN, tunnelPort: 4789, vni: 4096, nodePortMode: NodePortMode.TUNNEL } as const;
    const n1 = node1(cfg);
    const n2 = node2(cfg);
    nodePortService(n1, POD_C);
    allowWorldTo8080(n2, POD_C);

    // Node 1: DNAT to POD_C, encapsulated to N2.
    const skb = clientSyn(N1);
    const out = run(n1, fromNetdev, skb, { ifindex: UPLINK, devMac: N1_MAC });
    assert.equal(out.verdict, Verdict.REDIRECT);
    assert.equal(n1.ctx.redirectIfindex, UPLINK);
    assert.equal(out.events[0]!.point, TracePoint.TO_OVERLAY);
    const outer = view(skb);
    assert.deepEqual([outer.src, outer.dst, outer.proto, outer.tunnel, outer.vni, outer.udpDport], [N1, N2, IPPROTO_UDP, TunnelKind.VXLAN, 4096, 4789]);
    assert.deepEqual([outer.srcMac, outer.dstMac], [N1_MAC, N2_MAC]);
    assertSkbValid(skb); // outer and inner checksums
    const innerTuple = skbOf(skb.data.slice(outer.innerOffset, skb.tail));
    const inner = view(innerTuple);
    assert.deepEqual([inner.src, inner.dst, inner.sport, inner.dport], [CLIENT, POD_C, 50000, 8080]);
    const np = n1.maps.ct.lookupV4(CLIENT, POD_C, 50000, 8080, TCP, CtTupleFlag.OUT);
    assert.ok(np >= 0);
    assert.equal(n1.maps.ct.values[np * CT_VALUE_WORDS + CtValue.FLAGS]! & CtFlag.NODE_PORT, CtFlag.NODE_PORT);

    // Node 2: decapsulated, delivered to POD_C; the backend's policy saw the client (world).
    const arrived = skbOf(skb.bytes().slice());
    const at2 = run(n2, fromNetdev, arrived, { ifindex: UPLINK, devMac: N2_MAC });
    assert.equal(at2.verdict, Verdict.REDIRECT);
    assert.equal(n2.ctx.redirectIfindex, IF_C);
    assert.equal(at2.events[0]!.srcIdentity, 2);
    assert.equal(at2.events[0]!.xlate & Xlate.DECAP, Xlate.DECAP);
    const d = view(arrived);
    assert.deepEqual([d.src, d.dst, d.dport, d.dstMac, d.ttl], [CLIENT, POD_C, 8080, MAC_C, 63]);
    assertSkbValid(arrived);
    assert.equal(arrived.tunnelSrc, N1);
    const inEntry = n2.maps.ct.lookupV4(CLIENT, POD_C, 50000, 8080, TCP, CtTupleFlag.IN);
    assert.ok(inEntry >= 0);
    assert.equal(n2.maps.ct.values[inEntry * CT_VALUE_WORDS + CtValue.TUNNEL_RETURN], N1, "tunnel return node");

    // The backend answers: back through the tunnel to node 1 (not straight to the client).
    const reply = skbOf(buildFrame({ src: POD_C, dst: CLIENT, proto: TCP, sport: 8080, dport: 50000, tcpFlags: SYN_ACK, srcMac: MAC_C }));
    const ret = run(n2, fromContainer, reply, { ifindex: IF_C });
    assert.equal(ret.verdict, Verdict.REDIRECT);
    assert.equal(ret.events[0]!.point, TracePoint.TO_OVERLAY);
    const ro = view(reply);
    assert.deepEqual([ro.src, ro.dst, ro.dstMac], [N2, N1, N1_MAC]);
    assertSkbValid(reply);

    // Node 1: decapsulated, reverse-translated to the NodePort, routed to the client.
    const home = skbOf(reply.bytes().slice());
    const fin = run(n1, fromNetdev, home, { ifindex: UPLINK, devMac: N1_MAC });
    assert.equal(fin.verdict, Verdict.REDIRECT);
    assert.equal(n1.ctx.redirectIfindex, UPLINK);
    const h = view(home);
    assert.deepEqual([h.src, h.sport, h.dst, h.dport, h.dstMac, h.srcMac], [N1, NODEPORT, CLIENT, 50000, CLIENT_MAC, N1_MAC]);
    assert.equal(h.tunnel, TunnelKind.NONE);
    assertSkbValid(home);
  });

  it("SNAT mode: the backend sees this node's address; the reply is translated back on arrival", () => {
    const cfg = { encap: EncapKind.VXLAN, tunnelPort: 8472, nodePortMode: NodePortMode.SNAT } as const;
    const n1 = node1(cfg);
    const n2 = node2(cfg);
    nodePortService(n1, POD_C);
    const p2 = n2.policies.get(POD_C)!;
    assert.equal(p2.upsert(Direction.INGRESS, 6, TCP, 8080, 8080, PolicyVerdict.ALLOW, 51), 0); // remote node
    assert.equal(p2.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 52), 0);

    const skb = clientSyn(N1, 51000);
    assert.equal(run(n1, fromNetdev, skb, { ifindex: UPLINK, devMac: N1_MAC }).verdict, Verdict.REDIRECT);
    const outer = view(skb);
    const inner = view(skbOf(skb.data.slice(outer.innerOffset, skb.tail)));
    assert.equal(inner.src, N1);
    assert.equal(inner.dst, POD_C);
    // 51000 lies in the NAT range and is free: kept, as Cilium's SNAT tries first.
    assert.equal(inner.sport, 51000);
    assertSkbValid(skb);

    const arrived = skbOf(skb.bytes().slice());
    const at2 = run(n2, fromNetdev, arrived, { ifindex: UPLINK, devMac: N2_MAC });
    assert.equal(at2.verdict, Verdict.REDIRECT);
    assert.equal(at2.events[0]!.srcIdentity, 6, "the backend's policy sees a remote node, not the client");

    const reply = skbOf(buildFrame({ src: POD_C, dst: N1, proto: TCP, sport: 8080, dport: 51000, tcpFlags: SYN_ACK, srcMac: MAC_C }));
    const fromPod = run(n2, fromContainer, reply, { ifindex: IF_C });
    assert.equal(fromPod.verdict, Verdict.PASS, "a node address is reached natively through the stack");
    const home = skbOf(buildFrame({ src: POD_C, dst: N1, proto: TCP, sport: 8080, dport: 51000, tcpFlags: SYN_ACK, ttl: 63, srcMac: N2_MAC, dstMac: N1_MAC }));
    const fin = run(n1, fromNetdev, home, { ifindex: UPLINK, devMac: N1_MAC });
    assert.equal(fin.verdict, Verdict.REDIRECT);
    const h = view(home);
    assert.deepEqual([h.src, h.sport, h.dst, h.dport, h.dstMac], [N1, NODEPORT, CLIENT, 51000, CLIENT_MAC]);
    assertSkbValid(home);
    assert.equal(fin.events[0]!.xlate & (Xlate.REV_SNAT | Xlate.REV_DNAT), Xlate.REV_SNAT | Xlate.REV_DNAT);
  });

  it("IPIP tunnel: outer protocol 4 carries the DNAT'ed datagram, TTL and DF inherited", () => {
    const cfg = { encap: EncapKind.IPIP } as const;
    const n1 = node1(cfg);
    const n2 = node2(cfg);
    nodePortService(n1, POD_C);
    allowWorldTo8080(n2, POD_C);
    const skb = clientSyn(N1, 52000);
    assert.equal(run(n1, fromNetdev, skb, { ifindex: UPLINK, devMac: N1_MAC }).verdict, Verdict.REDIRECT);
    const o = view(skb);
    assert.deepEqual([o.src, o.dst, o.proto, o.tunnel, o.ttl, o.hdr.dontFragment, o.hdr.ipId], [N1, N2, 4, TunnelKind.IPIP, 64, true, 0]);
    assertSkbValid(skb);
    const at2 = run(n2, fromNetdev, skbOf(skb.bytes().slice()), { ifindex: UPLINK, devMac: N2_MAC });
    assert.equal(at2.verdict, Verdict.REDIRECT);
    assert.equal(n2.ctx.redirectIfindex, IF_C);
    assert.equal(ID_C, at2.events[0]!.dstIdentity);
  });
});

describe("from-netdev: other traffic", () => {
  it("passes non-service traffic for the node to the stack, and ACKs of local flows keep working", () => {
    const n = node1();
    const { verdict, events } = run(n, fromNetdev, skbOf(buildFrame({ src: CLIENT, dst: N1, proto: TCP, dport: 22, tcpFlags: ACK })), { ifindex: UPLINK });
    assert.equal(verdict, Verdict.PASS);
    assert.equal(events[0]!.point, TracePoint.TO_HOST);
  });
});
