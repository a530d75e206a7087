// Policy in from-container / to-container: egress and ingress allow/deny with the drop record's policy
// reference, explicit deny entries, the conntrack switch (established flows re-checked vs accepted),
// CIDR identities from the ipcache (longest prefix wins), and to-container for host-routed packets.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IPPROTO_TCP } from "../../../src/wire/checksum.js";
import { Verdict } from "../../../datapath/ctx.js";
import { PolicyCtMode } from "../../../datapath/lib/config.js";
import { MARK_MAGIC_POLICY_DONE } from "../../../datapath/lib/marks.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { DropReason, TracePoint } from "../../../datapath/reasons.js";
import { cidrIdentity } from "../../../datapath/identity.js";
import { fromContainer, toContainer } from "../../../datapath/programs/lxc.js";
import {
  ACK, CLIENT, ID_A, ID_B, IF_A, IF_B, MAC_B, N1, POD_A, POD_B, SYN, SYN_ACK,
  buildFrame, ip, node1, run, skbOf, view, type Node,
} from "./fixtures.js";

const TCP = IPPROTO_TCP;

function policyOf(n: Node, addr: number) {
  const p = n.policies.get(addr);
  assert.ok(p);
  return p;
}

/** A allowed to egress to B:80, B allowed to ingress from A on 80; everything else isolated. */
function aToB80(n: Node): void {
  assert.equal(policyOf(n, POD_A).upsert(Direction.EGRESS, ID_B, TCP, 80, 80, PolicyVerdict.ALLOW, 11), 0);
  assert.equal(policyOf(n, POD_B).upsert(Direction.INGRESS, ID_A, TCP, 80, 80, PolicyVerdict.ALLOW, 12), 0);
}

const syn = (sport = 40000, dport = 80) => skbOf(buildFrame({ src: POD_A, dst: POD_B, proto: TCP, sport, dport, tcpFlags: SYN }));

describe("from-container: policy", () => {
  it("delivers A -> B:80 when egress and ingress allow it", () => {
    const n = node1();
    aToB80(n);
    const { verdict, events } = run(n, fromContainer, syn(), { ifindex: IF_A });
    assert.equal(verdict, Verdict.REDIRECT);
    assert.equal(n.ctx.redirectIfindex, IF_B);
    assert.equal(events[0]!.point, TracePoint.TO_ENDPOINT);
    assert.deepEqual([events[0]!.srcIdentity, events[0]!.dstIdentity], [ID_A, ID_B]);
  });

  it("drops at the source's egress with a policy reference when no egress entry matches", () => {
    const n = node1();
    aToB80(n);
    const { verdict, events } = run(n, fromContainer, syn(40000, 81), { ifindex: IF_A });
    assert.equal(verdict, Verdict.DROP);
    assert.equal(events.length, 1);
    const e = events[0]!;
    assert.equal(e.reason, DropReason.POLICY_DENIED);
    assert.equal(e.site, "datapath/lib/policy:egress");
    assert.deepEqual(e.policy, {
      endpointId: 1, endpointIp: POD_A, direction: Direction.EGRESS, peerIp: POD_B, peerIdentity: ID_B,
      proto: TCP, port: 81, verdict: PolicyVerdict.MISS, ruleRef: 0,
    });
    assert.deepEqual([e.srcIdentity, e.dstIdentity], [ID_A, ID_B]);
  });

  it("drops at the destination's ingress, naming the peer identity the destination saw", () => {
    const n = node1();
    assert.equal(policyOf(n, POD_A).upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1), 0);
    const { verdict, events } = run(n, fromContainer, syn(), { ifindex: IF_A });
    assert.equal(verdict, Verdict.DROP);
    const e = events[0]!;
    assert.equal(e.site, "datapath/lib/policy:ingress");
    assert.equal(e.policy?.direction, Direction.INGRESS);
    assert.equal(e.policy?.endpointIp, POD_B);
    assert.equal(e.policy?.peerIp, POD_A);
    assert.equal(e.policy?.peerIdentity, ID_A);
    assert.equal(n.maps.ct.size, 1, "only the egress entry exists; the refused ingress created none");
  });

  it("an explicit deny entry wins over an allow and reports POLICY_DENY with its ruleRef", () => {
    const n = node1();
    aToB80(n);
    assert.equal(policyOf(n, POD_B).upsert(Direction.INGRESS, ID_A, TCP, 0, 1023, PolicyVerdict.DENY, 99), 0);
    const { verdict, events } = run(n, fromContainer, syn(), { ifindex: IF_A });
    assert.equal(verdict, Verdict.DROP);
    assert.equal(events[0]!.reason, DropReason.POLICY_DENY);
    assert.equal(events[0]!.policy?.ruleRef, 99);
    assert.equal(events[0]!.policy?.verdict, PolicyVerdict.DENY);
  });

  for (const [mode, name, passes] of [
    [PolicyCtMode.RECHECK_ESTABLISHED, "re-checks", false],
    [PolicyCtMode.ACCEPT_ESTABLISHED, "accepts", true],
  ] as const) {
    it(`${name} forward packets of an established flow after the allow is removed; replies pass`, () => {
      const n = node1({ policyCtMode: mode });
      aToB80(n);
      assert.equal(policyOf(n, POD_A).upsert(Direction.INGRESS, ID_B, TCP, 0, 65535, PolicyVerdict.ALLOW, 13), 0);
      assert.equal(run(n, fromContainer, syn(), { ifindex: IF_A }).verdict, Verdict.REDIRECT);
      const synAck = skbOf(buildFrame({ src: POD_B, dst: POD_A, proto: TCP, sport: 80, dport: 40000, tcpFlags: SYN_ACK, srcMac: MAC_B }));
      assert.equal(run(n, fromContainer, synAck, { ifindex: IF_B }).verdict, Verdict.REDIRECT);
      // The policy changes: B no longer admits A, A no longer admits B.
      assert.ok(policyOf(n, POD_B).delete(Direction.INGRESS, ID_A, TCP, 80, 80));
      assert.ok(policyOf(n, POD_A).delete(Direction.INGRESS, ID_B, TCP, 0, 65535));
      const ack = skbOf(buildFrame({ src: POD_A, dst: POD_B, proto: TCP, sport: 40000, dport: 80, tcpFlags: ACK }));
      const forward = run(n, fromContainer, ack, { ifindex: IF_A });
      assert.equal(forward.verdict, passes ? Verdict.REDIRECT : Verdict.DROP);
      if (!passes) assert.equal(forward.events[0]!.site, "datapath/lib/policy:ingress");
      const reply = skbOf(buildFrame({ src: POD_B, dst: POD_A, proto: TCP, sport: 80, dport: 40000, tcpFlags: ACK, srcMac: MAC_B }));
      assert.equal(run(n, fromContainer, reply, { ifindex: IF_B }).verdict, Verdict.REDIRECT, "replies never consult policy");
    });
  }

  it("CIDR identities from the ipcache: longest prefix wins, so an except-like /25 is not allowed", () => {
    const n = node1();
    const net = cidrIdentity(1)!;
    const hole = cidrIdentity(2)!;
    assert.equal(n.maps.ipcache.upsertV4(ip("10.1.8.0"), 24, net, 0, 0), 0);
    assert.equal(n.maps.ipcache.upsertV4(ip("10.1.8.128"), 25, hole, 0, 0), 0);
    assert.equal(policyOf(n, POD_A).upsert(Direction.EGRESS, net, TCP, 443, 443, PolicyVerdict.ALLOW, 21), 0);
    const to = (dst: number) => run(n, fromContainer, skbOf(buildFrame({ src: POD_A, dst, proto: TCP, dport: 443, tcpFlags: SYN })), { ifindex: IF_A });
    const inside = to(CLIENT); // 10.1.8.100 in the /24, outside the /25
    assert.equal(inside.verdict, Verdict.PASS);
    assert.equal(inside.events[0]!.point, TracePoint.TO_STACK);
    assert.equal(inside.events[0]!.dstIdentity, net);
    const excepted = to(ip("10.1.8.200"));
    assert.equal(excepted.verdict, Verdict.DROP);
    assert.equal(excepted.events[0]!.policy?.peerIdentity, hole);
    const world = to(ip("8.8.8.8"));
    assert.equal(world.verdict, Verdict.DROP);
    assert.equal(world.events[0]!.policy?.peerIdentity, 2);
  });

  it("an endpoint without a policy map enforces nothing", () => {
    const n = node1();
    assert.equal(n.maps.endpoints.upsert({ ip: POD_A, ifindex: IF_A, id: 1, identity: ID_A, mac: 0x0a5800000a0a, policy: null }), 0);
    assert.equal(n.maps.endpoints.upsert({ ip: POD_B, ifindex: IF_B, id: 2, identity: ID_B, mac: MAC_B, policy: null }), 0);
    assert.equal(run(n, fromContainer, syn(), { ifindex: IF_A }).verdict, Verdict.REDIRECT);
  });
});

describe("to-container", () => {
  it("enforces the endpoint's ingress policy on packets the host stack routes to it", () => {
    const n = node1();
    assert.equal(policyOf(n, POD_B).upsert(Direction.INGRESS, 1, TCP, 80, 80, PolicyVerdict.ALLOW, 31), 0); // host only
    const fromHost = skbOf(buildFrame({ src: N1, dst: POD_B, proto: TCP, dport: 80, tcpFlags: SYN }));
    const ok = run(n, toContainer, fromHost, { ifindex: IF_B });
    assert.equal(ok.verdict, Verdict.PASS);
    assert.equal(ok.events[0]!.point, TracePoint.TO_ENDPOINT);
    assert.equal(ok.events[0]!.srcIdentity, 1);
    const fromWorld = skbOf(buildFrame({ src: ip("192.0.2.7"), dst: POD_B, proto: TCP, dport: 80, tcpFlags: SYN }));
    const denied = run(n, toContainer, fromWorld, { ifindex: IF_B });
    assert.equal(denied.verdict, Verdict.DROP);
    assert.equal(denied.events[0]!.policy?.peerIdentity, 2);
  });

  it("lets through once, without a second policy check, what from-container already delivered", () => {
    const n = node1();
    aToB80(n);
    const skb = syn();
    assert.equal(run(n, fromContainer, skb, { ifindex: IF_A }).verdict, Verdict.REDIRECT);
    assert.equal(skb.mark, MARK_MAGIC_POLICY_DONE);
    policyOf(n, POD_B).clear(); // would deny if checked again
    const { verdict, events } = run(n, toContainer, skb, { ifindex: IF_B });
    assert.equal(verdict, Verdict.PASS);
    assert.equal(events.length, 0);
    assert.equal(skb.mark, 0);
    assert.equal(view(skb).dst, POD_B);
  });
});
