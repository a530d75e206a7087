// Bad input and TTL: a truncated or malformed packet is INVALID_PACKET with the site and the field/offset
// that failed; IPv6 from a pod is UNKNOWN_L3; ARP passes; a spoofed source is INVALID_SOURCE_IP; TTL 1 is
// not delivered (TTL_EXCEEDED) while TTL 2 arrives with 1 and a valid header checksum.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IPPROTO_TCP, IPPROTO_UDP } from "../../../src/wire/checksum.js";
import { Verdict } from "../../../datapath/ctx.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { DropReason, TracePoint } from "../../../datapath/reasons.js";
import { fromContainer } from "../../../datapath/programs/lxc.js";
import { fromNetdev } from "../../../datapath/programs/host.js";
import { IF_A, N1, POD_A, POD_B, UPLINK, assertSkbValid, buildFrame, node1, run, skbOf, view, type Node } from "./fixtures.js";

function open(n: Node): void {
  for (const p of n.policies.values()) {
    p.upsert(Direction.INGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
    p.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
  }
}

describe("invalid packets", () => {
  it("a TCP header cut short is INVALID_PACKET naming the field and frame offset", () => {
    const n = node1();
    const full = buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_TCP, payload: 0 });
    const cut = full.slice(0, 14 + 20 + 10);
    cut[17] = 30; // IPv4 total length = what is present, so only the TCP header is short
    cut[16] = 0;
    const { verdict, events } = run(n, fromContainer, skbOf(cut), { ifindex: IF_A });
    assert.equal(verdict, Verdict.DROP);
    assert.equal(events.length, 1);
    assert.equal(events[0]!.reason, DropReason.INVALID_PACKET);
    assert.equal(events[0]!.site, "datapath/lib/parse:invalid");
    assert.match(events[0]!.detail, /^tcp\.header at byte 34: /);
  });

  it("an IPv4 total length beyond the frame is INVALID_PACKET at from-netdev too", () => {
    const n = node1();
    const f = buildFrame({ src: POD_B, dst: N1, proto: IPPROTO_UDP });
    f[16] = 0x05; // total length 0x05xx > frame
    const { verdict, events } = run(n, fromNetdev, skbOf(f), { ifindex: UPLINK });
    assert.equal(verdict, Verdict.DROP);
    assert.equal(events[0]!.reason, 134);
    assert.match(events[0]!.detail, /^ipv4\.totalLength at byte 16: /);
  });

  it("IPv6 from a pod is UNKNOWN_L3; ARP goes to the stack", () => {
    const n = node1();
    const v6 = new Uint8Array(14 + 40);
    v6[12] = 0x86;
    v6[13] = 0xdd;
    v6[14] = 0x60;
    v6[20] = 59; // no next header
    const dropped = run(n, fromContainer, skbOf(v6), { ifindex: IF_A });
    assert.equal(dropped.verdict, Verdict.DROP);
    assert.equal(dropped.events[0]!.reason, DropReason.UNKNOWN_L3);
    const arp = new Uint8Array(14 + 28);
    arp[12] = 0x08;
    arp[13] = 0x06;
    const passed = run(n, fromContainer, skbOf(arp), { ifindex: IF_A });
    assert.equal(passed.verdict, Verdict.PASS);
    assert.equal(passed.events[0]!.point, TracePoint.TO_STACK);
  });

  it("a source address that is not the endpoint of the interface is INVALID_SOURCE_IP", () => {
    const n = node1();
    open(n);
    const spoofed = run(n, fromContainer, skbOf(buildFrame({ src: POD_B, dst: N1, proto: IPPROTO_TCP })), { ifindex: IF_A });
    assert.equal(spoofed.verdict, Verdict.DROP);
    assert.equal(spoofed.events[0]!.reason, DropReason.INVALID_SOURCE_IP);
    assert.equal(spoofed.events[0]!.site, "datapath/lxc:from-container:source-ip");
  });
});

describe("TTL", () => {
  it("endpoint-to-endpoint delivery decrements TTL; TTL 1 is TTL_EXCEEDED", () => {
    const n = node1();
    open(n);
    const two = skbOf(buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_TCP, ttl: 2 }));
    assert.equal(run(n, fromContainer, two, { ifindex: IF_A }).verdict, Verdict.REDIRECT);
    assert.equal(view(two).ttl, 1);
    assertSkbValid(two);
    const one = skbOf(buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_TCP, sport: 40001, ttl: 1 }));
    const { verdict, events } = run(n, fromContainer, one, { ifindex: IF_A });
    assert.equal(verdict, Verdict.DROP);
    assert.equal(events[0]!.reason, DropReason.TTL_EXCEEDED);
    assert.equal(events[0]!.site, "datapath/lib/l3:ttl");
    assert.equal(n.ctx.redirectIfindex, 0);
  });
});
