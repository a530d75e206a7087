// Replays the frames namespace A's programs sent in the kernel-golden capture (Linux 6.18) into the
// same topology in the model and compares, byte for byte and in time, every frame the model's R, B
// and A stacks produce with what the kernel produced: ARP request/reply (incl. proxy ARP), forwarding
// with TTL decrement, echo replies, time exceeded, net unreachable, fragmentation needed,
// fragmentation, UDP port unreachable, TCP resets, neighbour probing (DELAY -> PROBE) and resolution
// failure, then the SNMP counters. Legitimate differences: the IP ID of stack-built ICMP (the kernel
// hashes with a random key) and the header checksum that follows from it; timer expiry, which the
// kernel's timer wheel rounds up (never earlier than the model).

import { test } from "node:test";
import assert from "node:assert/strict";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { Capture, type CapturedFrame, assertConserved, fromHex, goldenTopology, injectTx, toHex } from "./topology.js";
import { LO_A, SNMP, VA, VB, type GoldenFrame } from "./kernel-golden.js";

const NS = 1e9;
const MAC_A = "020000010002";
const MAC_B = "020000020002";
const MAC_R_B = "020000020001";
const ARP_ETHERTYPE = "0806";

const src = (f: GoldenFrame): string => f.hex.slice(12, 24);
const isArp = (f: GoldenFrame): boolean => f.hex.slice(24, 28) === ARP_ETHERTYPE;
const arpOp = (f: GoldenFrame): number => parseInt(f.hex.slice(40, 44), 16);
const broadcast = (f: GoldenFrame): boolean => f.hex.startsWith("ffffffffffff");
const arpTarget = (f: GoldenFrame): string => /who-has (\S+) /.exec(f.summary)?.[1] ?? "";

/**
 * A's frames fall in three groups. Its stack's answers to R's probes and its requests for 10.1.0.99
 * (the model's A sends those itself); its requests for 10.1.0.3, which the kernel sends after
 * accepting R's redirect (the model does not act on redirects: excluded); everything else was sent
 * by ping or raw sockets, or resolved R for them, and is replayed as captured.
 */
const fromAStack = (f: GoldenFrame): boolean => isArp(f) && (arpOp(f) === 2 || arpTarget(f) === "10.1.0.99");
const afterRedirect = (f: GoldenFrame): boolean => isArp(f) && arpOp(f) === 1 && arpTarget(f) === "10.1.0.3" && src(f) === MAC_A;

/** 5 s timers land up to 256 ms late (timer wheel level 2 at HZ=250); 1 s timers up to 32 ms each. */
const PROBE_SLACK = 0.26;
const RETRANS_SLACK = 0.035;

/** How late the kernel may legitimately be for golden frame i (timer-driven frames), else undefined. */
function slack(frames: readonly GoldenFrame[], i: number): number | undefined {
  const f = frames[i]!;
  if (isArp(f) && arpOp(f) === 1) {
    if (!broadcast(f)) return PROBE_SLACK;
    const earlier = frames.filter((g, j) => j < i && g.summary === f.summary && f.t - g.t < 4).length;
    return earlier === 0 ? undefined : earlier * RETRANS_SLACK;
  }
  if (isArp(f) && arpOp(f) === 2) {
    const prev = frames[i - 1];
    return prev !== undefined && isArp(prev) && arpOp(prev) === 1 && !broadcast(prev) ? PROBE_SLACK : undefined;
  }
  const unreachable = /ICMP host (\S+) unreachable, length/.exec(f.summary)?.[1];
  if (unreachable !== undefined && frames.some((g, j) => j < i && isArp(g) && arpTarget(g) === unreachable)) return 3 * RETRANS_SLACK + 0.005;
  return undefined;
}

const indexes = (frames: readonly GoldenFrame[], keep: (f: GoldenFrame, i: number) => boolean): number[] =>
  frames.flatMap((f, i) => (keep(f, i) ? [i] : []));

const FROM_A = indexes(VA, (f) => src(f) === MAC_A && !fromAStack(f) && !afterRedirect(f));
const DOT99 = indexes(VA, (f) => isArp(f) && arpTarget(f) === "10.1.0.99");

function replay() {
  const t = goldenTopology();
  const cap = Capture.on(t.va, t.vb, t.a.loopback);
  const sim = t.world.sim;
  for (const i of FROM_A) {
    const frame = fromHex(VA[i]!.hex);
    sim.scheduleAt(Math.round(VA[i]!.t * NS), () => injectTx(t.world, t.va, frame));
  }
  // A's ping to 10.1.0.99 (the datagram LO_A[0] quotes), sent when its first ARP request left.
  const ping = fromHex(LO_A[0]!.hex).slice(14 + 20 + 8);
  sim.scheduleAt(Math.round(VA[DOT99[0]!]!.t * NS), () => t.a.outputIp(SkBuff.fromBytes(t.world.ledger.admit(), ping)));
  sim.run();
  return { t, cap };
}

/** Stack-built ICMP other than echo requests: IP ID and header checksum masked. */
function masked(bytes: Uint8Array): string {
  const copy = bytes.slice();
  if (copy[12] === 0x08 && copy[13] === 0x00 && copy[23] === 1 && copy[34] !== 8) {
    copy.fill(0, 18, 20);
    copy.fill(0, 24, 26);
  }
  return toHex(copy);
}

/** Compares model frames with the golden frames `want` in order (timer-driven frames may be late). */
function compare(label: string, model: CapturedFrame[], golden: readonly GoldenFrame[], want: number[]): void {
  assert.equal(model.length, want.length, `${label}: ${model.length} frames in the model, the kernel sent ${want.length}: ${want.map((i) => golden[i]!.summary).join(" | ")}`);
  want.forEach((gi, k) => {
    const g = golden[gi]!;
    const m = model[k]!;
    assert.equal(masked(m.bytes), masked(fromHex(g.hex)), `${label} frame ${k} vs golden [${gi}] ${g.summary}`);
    const late = g.t - m.time / NS;
    const allowed = slack(golden, gi);
    if (allowed === undefined) assert.ok(Math.abs(late) < 0.001, `${label} [${gi}] ${g.summary}: model at ${m.time / NS}s, kernel at ${g.t}s`);
    else assert.ok(late >= -1e-6 && late <= allowed, `${label} [${gi}] ${g.summary}: kernel ${late}s after the model (allowed 0..${allowed})`);
  });
}

test("A's link: the model answers every frame as the kernel did", () => {
  const { t, cap } = replay();
  // B's 1478-byte echo reply never reaches A: the veth in front of R drops frames longer than the
  // receiving end's MTU (vrb has 1400), in the kernel and in the model.
  compare("va rx", cap.of("va", "rx"), VA, indexes(VA, (f) => src(f) !== MAC_A));
  compare("va tx", cap.of("va", "tx"), VA, indexes(VA, (f) => src(f) === MAC_A && !afterRedirect(f)));
  assertConserved(t.world);
});

test("B's link: forwarding, fragmentation, ARP, probing, port unreachable and resets match the kernel", () => {
  const { t, cap } = replay();
  compare("vb rx", cap.of("vb", "rx"), VB, indexes(VB, (f) => src(f) === MAC_R_B));
  compare("vb tx", cap.of("vb", "tx"), VB, indexes(VB, (f) => src(f) === MAC_B));
  assertConserved(t.world);
});

test("neighbour resolution failure: three requests a second apart, then ICMP host unreachable to the sender over lo", () => {
  const { t, cap } = replay();
  const lo = cap.of("lo", "rx");
  assert.equal(lo.length, 1);
  assert.equal(masked(lo[0]!.bytes), masked(fromHex(LO_A[0]!.hex)));
  const late = LO_A[0]!.t - lo[0]!.time / NS;
  assert.ok(late >= 0 && late <= 3 * RETRANS_SLACK + 0.005, `host unreachable ${late}s after the model`);
  assert.equal(t.a.counters.neigh.resFailed, 1);
});

test("rate limits: of 10 TTL-1 pings 6 get time exceeded, of 10 unroutable ones 2.5 s later only 1 gets net unreachable", () => {
  const { t, cap } = replay();
  const rx = cap.of("va", "rx");
  // ICMP errors quoting the 36-byte burst pings: 14 + 20 + 8 + 36 bytes; the quoted destination ends at byte 61.
  const count = (type: number, dstLastOctet: number): number =>
    rx.filter((f) => f.bytes.length === 78 && f.bytes[23] === 1 && f.bytes[34] === type && f.bytes[61] === dstLastOctet).length;
  assert.equal(count(11, 2), VA.filter((f) => f.summary.includes("time exceeded") && f.summary.endsWith("length 44")).length);
  assert.equal(count(3, 8), VA.filter((f) => f.summary.includes("net 10.9.9.8 unreachable")).length);
  assert.equal(count(11, 2), 6);
  assert.equal(count(3, 8), 1);
  // ip_error's own bucket (shared with icmp_send's) refuses the other 9 before icmp_send counts them.
  assert.equal(t.r.counters.icmp.OutRateLimitHost, 4, "only the 4 refused time-exceeded messages reach the host limit");
});

function parseSnmp(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const lines = text.trim().split("\n");
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const [label, ...names] = lines[i]!.split(/\s+/);
    const values = lines[i + 1]!.split(/\s+/).slice(1);
    names.forEach((n, k) => out.set(`${label}${n}`, Number(values[k])));
  }
  return out;
}

/** Counters the model keeps; A's are left out (its packets were injected below its stack). */
const MODELLED = [
  "Ip:InReceives", "Ip:InHdrErrors", "Ip:InAddrErrors", "Ip:ForwDatagrams", "Ip:InUnknownProtos", "Ip:InDelivers",
  "Ip:OutRequests", "Ip:OutNoRoutes", "Ip:ReasmReqds", "Ip:ReasmOKs", "Ip:ReasmFails", "Ip:FragOKs", "Ip:FragFails",
  "Ip:FragCreates", "Ip:OutTransmits", "Icmp:InMsgs", "Icmp:InErrors", "Icmp:OutMsgs", "Icmp:OutRateLimitGlobal",
  "Icmp:OutRateLimitHost", "Icmp:OutDestUnreachs", "Icmp:OutTimeExcds", "Icmp:OutEchoReps", "Icmp:InEchos",
  "Tcp:InSegs", "Tcp:OutRsts", "Tcp:InErrs", "Udp:NoPorts", "Udp:InDatagrams", "Udp:InErrors", "IpExt:InNoRoutes",
  "IpExt:InTruncatedPkts", "IpExt:InOctets", "IpExt:OutOctets",
];

test("SNMP counters of R and B equal the kernel's", () => {
  const { t } = replay();
  for (const [name, ns] of [["r", t.r], ["b", t.b]] as const) {
    const kernel = parseSnmp(SNMP[name]);
    const model = parseSnmp(ns.snmp());
    for (const field of MODELLED) {
      const want = kernel.get(field) ?? Number.NaN;
      assert.equal(model.get(field), want, `${name} ${field}`);
    }
  }
});
