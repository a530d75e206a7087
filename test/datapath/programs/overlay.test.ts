// Pod traffic across nodes through the overlay: a ClusterIP translated on the client's node, delivered on
// the backend's node with the client's identity, the reply tunnelled back and reverse-translated where the
// DNAT happened; Cilium's identity-in-VNI; from-overlay on an overlay device; and eBPF masquerade.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IPPROTO_TCP, IPPROTO_UDP } from "../../../src/wire/checksum.js";
import { Verdict, Xlate } from "../../../datapath/ctx.js";
import { EncapKind } from "../../../datapath/lib/config.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { TracePoint } from "../../../datapath/reasons.js";
import { fromContainer } from "../../../datapath/programs/lxc.js";
import { fromNetdev, toNetdev } from "../../../datapath/programs/host.js";
import { fromOverlay } from "../../../datapath/programs/overlay.js";
import {
  ID_A, IF_A, IF_C, MAC_A, MAC_C, N1, N1_MAC, N2, N2_MAC, POD_A, POD_C, SYN, SYN_ACK, UPLINK, VIP,
  assertSkbValid, buildFrame, ip, node1, node2, run, skbOf, view, type Node,
} from "./fixtures.js";

const TCP = IPPROTO_TCP;

function open(n: Node): void {
  for (const p of n.policies.values()) {
    p.upsert(Direction.INGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
    p.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
  }
}

describe("across nodes through VXLAN", () => {
  it("ClusterIP on node 1 to a backend on node 2; the reply returns through the tunnel and is reverse-translated", () => {
    const cfg = { encap: EncapKind.VXLAN, tunnelPort: 8472, vni: 1 } as const;
    const n1 = node1(cfg);
    const n2 = node2(cfg);
    open(n1);
    assert.equal(n2.policies.get(POD_C)!.upsert(Direction.INGRESS, ID_A, TCP, 8080, 8080, PolicyVerdict.ALLOW, 7), 0);
    assert.equal(n2.policies.get(POD_C)!.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 8), 0);
    assert.equal(n1.maps.lb.upsertBackend(1, POD_C, 8080, TCP), 0);
    assert.equal(n1.maps.lb.upsertRevNat(2, VIP, 80), 0);
    assert.equal(n1.maps.lb.upsertService({ vip: VIP, port: 80, proto: TCP, revNatIndex: 2, flags: 0, backendIds: [1] }), 0);

    const req = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: TCP, sport: 40000, dport: 80, tcpFlags: SYN }));
    const out = run(n1, fromContainer, req, { ifindex: IF_A });
    assert.equal(out.verdict, Verdict.REDIRECT);
    assert.equal(n1.ctx.redirectIfindex, UPLINK);
    assert.equal(out.events[0]!.point, TracePoint.TO_OVERLAY);
    assert.equal(out.events[0]!.xlate & (Xlate.DNAT | Xlate.ENCAP), Xlate.DNAT | Xlate.ENCAP);
    const o = view(req);
    assert.deepEqual([o.src, o.dst, o.vni, o.udpDport, o.dstMac], [N1, N2, 1, 8472, N2_MAC]);
    assertSkbValid(req);

    const at2 = skbOf(req.bytes().slice());
    const in2 = run(n2, fromNetdev, at2, { ifindex: UPLINK, devMac: N2_MAC });
    assert.equal(in2.verdict, Verdict.REDIRECT);
    assert.equal(n2.ctx.redirectIfindex, IF_C);
    assert.equal(in2.events[0]!.srcIdentity, ID_A, "node 2's ingress policy saw pod A's identity");
    const d = view(at2);
    assert.deepEqual([d.src, d.dst, d.dport, d.dstMac], [POD_A, POD_C, 8080, MAC_C]);

    const reply = skbOf(buildFrame({ src: POD_C, dst: POD_A, proto: TCP, sport: 8080, dport: 40000, tcpFlags: SYN_ACK, srcMac: MAC_C }));
    assert.equal(run(n2, fromContainer, reply, { ifindex: IF_C }).verdict, Verdict.REDIRECT);
    assert.deepEqual([view(reply).src, view(reply).dst], [N2, N1]);
    const at1 = skbOf(reply.bytes().slice());
    const in1 = run(n1, fromNetdev, at1, { ifindex: UPLINK, devMac: N1_MAC });
    assert.equal(in1.verdict, Verdict.REDIRECT);
    assert.equal(n1.ctx.redirectIfindex, IF_A);
    const r = view(at1);
    assert.deepEqual([r.src, r.sport, r.dst, r.dport, r.dstMac], [VIP, 80, POD_A, 40000, MAC_A]);
    assertSkbValid(at1);
    assert.equal(in1.events[0]!.xlate & (Xlate.DECAP | Xlate.REV_DNAT), Xlate.DECAP | Xlate.REV_DNAT);
  });

  it("identity in the VNI (Cilium): node 2 takes the sender's identity from the tunnel, not its ipcache", () => {
    const cfg = { encap: EncapKind.VXLAN, tunnelPort: 8472, vniFromIdentity: true } as const;
    const n1 = node1(cfg);
    const n2 = node2(cfg);
    open(n1);
    open(n2);
    assert.ok(n2.maps.ipcache.deleteV4(POD_A, 32));
    const skb = skbOf(buildFrame({ src: POD_A, dst: POD_C, proto: TCP, dport: 8080, tcpFlags: SYN }));
    assert.equal(run(n1, fromContainer, skb, { ifindex: IF_A }).verdict, Verdict.REDIRECT);
    assert.equal(view(skb).vni, ID_A);
    const arrived = run(n2, fromNetdev, skbOf(skb.bytes().slice()), { ifindex: UPLINK, devMac: N2_MAC });
    assert.equal(arrived.verdict, Verdict.REDIRECT);
    assert.equal(arrived.events[0]!.srcIdentity, ID_A);
  });

  it("from-overlay on an overlay device: the kernel decapsulated, the program delivers with policy", () => {
    const n2 = node2({ encap: EncapKind.VXLAN });
    open(n2);
    const inner = skbOf(buildFrame({ src: POD_A, dst: POD_C, proto: TCP, dport: 8080, tcpFlags: SYN, dstMac: 0x02aabbccddee }));
    inner.tunnelSrc = N1;
    inner.tunnelId = 1;
    const { verdict, events } = run(n2, fromOverlay, inner, { ifindex: 5, devMac: 0x02aabbccddee });
    assert.equal(verdict, Verdict.REDIRECT);
    assert.equal(n2.ctx.redirectIfindex, IF_C);
    assert.equal(events[0]!.srcIdentity, ID_A);
    assert.equal(view(inner).dstMac, MAC_C);
  });
});

describe("to-netdev masquerade", () => {
  it("SNATs pod traffic leaving the cluster to the node address; the reply is restored and delivered", () => {
    const n1 = node1({ masquerade: true, nonMasqueradeAddr: ip("10.224.0.0"), nonMasqueradeLen: 16 });
    const pol = n1.policies.get(POD_A)!;
    assert.equal(pol.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1), 0); // no ingress allow at all
    const dns = ip("1.1.1.1");
    const query = skbOf(buildFrame({ src: POD_A, dst: dns, proto: IPPROTO_UDP, sport: 33333, dport: 53 }));
    assert.equal(run(n1, fromContainer, query, { ifindex: IF_A }).verdict, Verdict.PASS);
    const egress = run(n1, toNetdev, query, { ifindex: UPLINK });
    assert.equal(egress.verdict, Verdict.PASS);
    const q = view(query);
    assert.deepEqual([q.src, q.sport, q.dst, q.dport], [N1, 33333, dns, 53]);
    assertSkbValid(query);
    const inside = skbOf(buildFrame({ src: POD_A, dst: POD_C, proto: IPPROTO_UDP, sport: 33334, dport: 53 }));
    run(n1, toNetdev, inside, { ifindex: UPLINK });
    assert.equal(view(inside).src, POD_A, "destinations in the pod CIDR are not masqueraded");

    const answer = skbOf(buildFrame({ src: dns, dst: N1, proto: IPPROTO_UDP, sport: 53, dport: 33333, srcMac: 0x020000000802, dstMac: N1_MAC }));
    const back = run(n1, fromNetdev, answer, { ifindex: UPLINK, devMac: N1_MAC });
    assert.equal(back.verdict, Verdict.REDIRECT, "a reply needs no ingress allow");
    assert.equal(n1.ctx.redirectIfindex, IF_A);
    const a = view(answer);
    assert.deepEqual([a.src, a.dst, a.dport, a.dstMac], [dns, POD_A, 33333, MAC_A]);
    assertSkbValid(answer);
  });
});
