// Routing through a router namespace, kernel vs model (topology in harness/routed.ts; R -- B MTU 1400).
// A injects one probe at a time, then an ICMP echo to B as a marker: when A has the marker's echo
// reply, everything the probe caused has been seen. Per probe, compared: the frames R forwarded to B
// (exact bytes: TTL decrement, IPv4 checksum, MAC rewrite, fragments) and every frame that came back
// to A (ICMP errors from R and B with type, code, source address and quoted bytes; TCP RSTs; echo
// replies). The kernel's own packets with DF clear carry a random IP ID (ip_select_ident), so for
// those the ID and the header checksum bytes are not compared; checksum validity is.

import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { read16 } from "../../src/wire/bytes.js";
import { internetChecksum, setIpv4HeaderChecksum } from "../../src/wire/checksum.js";
import { KernelLab, kernelSkipReason } from "./harness/lab.js";
import { KernelCapture } from "./harness/capture.js";
import { frame, icmpEchoFrame, ip4, tcpFrame, TcpFlag, udpFrame, type Ipv4Spec } from "./harness/frames.js";
import { ModelLab } from "./harness/model.js";
import { describeFrame, diffFrameLists, formatDiffs, generatedFrameRules } from "./harness/compare.js";
import { buildKernelRouted, buildModelRouted, NET } from "./harness/routed.js";

const MTU_B = 1400;
const fromA = (dst: string, more: Partial<Ipv4Spec> = {}): Ipv4Spec => ({ srcMac: NET.aMac, dstMac: NET.raMac, src: NET.a, dst, ...more });

interface Probe {
  readonly name: string;
  /** What the kernel does (checked on the kernel's captures): frames R forwards to B, frames back at A. */
  readonly atB: number;
  readonly atA: number;
  readonly frame: Uint8Array;
}

const PROBES: readonly Probe[] = [
  { name: "UDP forwarded to B; B's port unreachable back", atB: 1, atA: 1, frame: udpFrame({ ...fromA(NET.b, { id: 0x1001, df: true }), sport: 40001, dport: 9 }) },
  { name: "TTL 1: R sends time exceeded", atB: 0, atA: 1, frame: udpFrame({ ...fromA(NET.b, { id: 0x1002, ttl: 1 }), sport: 40002, dport: 9 }) },
  { name: "no route: R sends net unreachable", atB: 0, atA: 1, frame: udpFrame({ ...fromA("198.51.100.7", { id: 0x1003 }), sport: 40003, dport: 9 }) },
  { name: "DF over the 1400 MTU: R sends frag needed", atB: 0, atA: 1, frame: udpFrame({ ...fromA(NET.b, { id: 0x1004, df: true }), sport: 40004, dport: 9, payload: 1450 }) },
  { name: "no DF over the 1400 MTU: R fragments, B reassembles and answers", atB: 2, atA: 1, frame: udpFrame({ ...fromA(NET.b, { id: 0x1005 }), sport: 40005, dport: 9, payload: 1450 }) },
  { name: "TCP SYN to a closed port of B: RST", atB: 1, atA: 1, frame: tcpFrame({ ...fromA(NET.b, { id: 0x1006, df: true }), sport: 40006, dport: 9, seq: 1000, flags: TcpFlag.SYN }) },
  { name: "TCP ACK to a closed port of R: RST", atB: 0, atA: 1, frame: tcpFrame({ ...fromA(NET.ra, { id: 0x1007, df: true }), sport: 40007, dport: 9, seq: 2000, ack: 3000, flags: TcpFlag.ACK, payload: "data" }) },
  { name: "UDP to a closed port of R: port unreachable", atB: 0, atA: 1, frame: udpFrame({ ...fromA(NET.ra, { id: 0x1008 }), sport: 40008, dport: 9 }) },
  { name: "echo to R's far address: reply from 10.200.2.1", atB: 0, atA: 1, frame: icmpEchoFrame({ ...fromA(NET.rb, { id: 0x1009 }), ident: 0x5151, seq: 1 }) },
  { name: "echo with TTL 1 to R itself: delivered, answered", atB: 0, atA: 1, frame: icmpEchoFrame({ ...fromA(NET.ra, { id: 0x100a, ttl: 1 }), ident: 0x5152, seq: 1 }) },
  { name: "echo with TTL 1 through R: time exceeded", atB: 0, atA: 1, frame: icmpEchoFrame({ ...fromA(NET.b, { id: 0x100b, ttl: 1 }), ident: 0x5153, seq: 1 }) },
  { name: "UDP with a bad checksum to B's closed port: forwarded, no answer", atB: 1, atA: 0, frame: badUdpChecksum(udpFrame({ ...fromA(NET.b, { id: 0x100c }), sport: 40012, dport: 9 })) },
  { name: "TCP RST to a closed port of B: no answer", atB: 1, atA: 0, frame: tcpFrame({ ...fromA(NET.b, { id: 0x100d, df: true }), sport: 40013, dport: 9, seq: 5, flags: TcpFlag.RST }) },
  { name: "an ICMP error with TTL 1: no time exceeded about an ICMP error", atB: 0, atA: 0, frame: icmpErrorFrame() },
  { name: "a non-first fragment with TTL 1: no time exceeded", atB: 0, atA: 0, frame: laterFragment() },
];

/** The same UDP frame with its checksum off by one. */
function badUdpChecksum(f: Uint8Array): Uint8Array {
  f[41] = (f[41]! + 1) & 0xff;
  return f;
}

/** A port unreachable from A about a datagram B supposedly sent, with TTL 1. */
function icmpErrorFrame(): Uint8Array {
  const quoted = udpFrame({ srcMac: NET.bMac, dstMac: NET.aMac, src: NET.b, dst: NET.a, id: 0x0abc, sport: 9999, dport: 40014 }).subarray(14, 14 + 28);
  const f = icmpEchoFrame({ ...fromA(NET.b, { id: 0x100e, ttl: 1 }), ident: 0, seq: 0, payload: 32 });
  f[34] = 3;
  f[35] = 3;
  f.set(new Uint8Array(4), 38);
  f.set(quoted, 42);
  f[36] = 0;
  f[37] = 0;
  const sum = internetChecksum(f, 34, f.length);
  f[36] = sum >>> 8;
  f[37] = sum & 0xff;
  return f;
}

/** The second fragment (offset 1480) of a UDP datagram, TTL 1. */
function laterFragment(): Uint8Array {
  const f = udpFrame({ ...fromA(NET.b, { id: 0x100f, ttl: 1 }), sport: 40015, dport: 9, payload: 32 });
  f[20] = 0x00;
  f[21] = 185; // fragment offset 185 * 8 = 1480, MF clear
  f[24] = 0;
  f[25] = 0;
  setIpv4HeaderChecksum(f, 14, 20);
  return f;
}

const MARKER_IDENT = 0x7e00;
const BURST_MARKER = 0x40;
/** A second source behind A for the rate-limit burst (ICMP errors are limited per destination). */
const BURST_SRC = "10.200.1.3";
const BURST = 10;
const burstFrames = (): Uint8Array[] =>
  Array.from({ length: BURST }, (_, k) => udpFrame({ ...fromA(NET.b, { src: BURST_SRC, id: 0x1100 + k, ttl: 1 }), sport: 41000 + k, dport: 9 }));
const toBurstSrc = (f: Uint8Array): boolean => frame.isIpv4(f) && frame.ipDst(f) === ip4(BURST_SRC);
const marker = (n: number): Uint8Array => icmpEchoFrame({ ...fromA(NET.b, { id: 0x7000 + n }), ident: MARKER_IDENT + n, seq: n });
/** n when f is marker n's echo (type 8) or echo reply (type 0), else 0. */
function markerOf(f: Uint8Array, type: number): number {
  if (!frame.isIpv4(f) || frame.ipProto(f) !== 1 || f[frame.l4(f)] !== type) return 0;
  const ident = read16(f, frame.l4(f) + 4);
  return ident > MARKER_IDENT && ident <= MARKER_IDENT + BURST_MARKER ? ident - MARKER_IDENT : 0;
}

/** Cuts a capture into per-probe slices, each ending with that probe's marker. */
function split(frames: readonly Uint8Array[], type: number): Uint8Array[][] {
  const out: Uint8Array[][] = PROBES.map(() => []);
  let n = 0;
  for (const f of frames) {
    if (n >= PROBES.length) break;
    out[n]!.push(f);
    const k = markerOf(f, type);
    if (k > 0) n = k;
  }
  return out;
}

interface Seen {
  readonly atA: Uint8Array[][];
  readonly atB: Uint8Array[][];
  /** What came back to BURST_SRC for the burst of TTL-1 datagrams. */
  readonly burst: Uint8Array[];
}

async function kernelRun(): Promise<Seen> {
  const lab = new KernelLab("rt");
  try {
    const t = buildKernelRouted(lab, { mtuB: MTU_B });
    lab.ip(t.r, "neigh", "add", BURST_SRC, "lladdr", NET.aMac, "dev", "vra", "nud", "permanent");
    const capA = await KernelCapture.start(lab, t.a, "va", "in");
    const capB = await KernelCapture.start(lab, t.b, "vb", "in");
    for (const [i, p] of PROBES.entries()) {
      await lab.send(t.a, "va", [p.frame, marker(i + 1)]);
      await capA.waitFor((fs) => fs.some((f) => markerOf(f, 0) === i + 1), `echo reply to marker ${i + 1}`);
    }
    await lab.send(t.a, "va", [...burstFrames(), marker(BURST_MARKER)]);
    await capA.waitFor((fs) => fs.some((f) => markerOf(f, 0) === BURST_MARKER), "echo reply to the burst's marker");
    const a = await capA.stop();
    return { atA: split(a, 0), atB: split(await capB.stop(), 8), burst: a.filter(toBurstSrc) };
  } finally {
    await lab.close();
  }
}

function modelRun(): Seen {
  const m = new ModelLab();
  const t = buildModelRouted(m, { mtuB: MTU_B });
  m.neigh(t.r, t.vra, BURST_SRC, NET.aMac);
  const atA = m.tap(t.va, "rx");
  const atB = m.tap(t.vb, "rx");
  const seen: Seen = { atA: [], atB: [], burst: [] };
  let a = 0;
  let b = 0;
  for (const [i, p] of PROBES.entries()) {
    m.send(t.va, [p.frame, marker(i + 1)]);
    seen.atA.push(atA.slice(a));
    seen.atB.push(atB.slice(b));
    a = atA.length;
    b = atB.length;
  }
  m.send(t.va, [...burstFrames(), marker(BURST_MARKER)]);
  seen.burst.push(...atA.slice(a).filter(toBurstSrc));
  return seen;
}

const skip = kernelSkipReason();

describe("routing through a router namespace: kernel vs model", { skip: skip ?? false, timeout: 120_000 }, () => {
  let kernel: Seen;
  let model: Seen;
  before(async () => {
    kernel = await kernelRun();
    model = modelRun();
  });

  for (const [i, p] of PROBES.entries()) {
    it(p.name, () => {
      const list = (fs: Uint8Array[]): string => fs.map(describeFrame).join("\n    ");
      const context = `\n  kernel at B:\n    ${list(kernel.atB[i]!)}\n  kernel at A:\n    ${list(kernel.atA[i]!)}`;
      assert.deepEqual([kernel.atB[i]!.length - 1, kernel.atA[i]!.length - 1], [p.atB, p.atA], `kernel oracle (frames at B, at A besides the marker)${context}`);
      const atB = diffFrameLists(kernel.atB[i]!, model.atB[i]!);
      assert.equal(atB.length, 0, formatDiffs(`${p.name} / forwarded to B`, atB) + context);
      const atA = diffFrameLists(kernel.atA[i]!, model.atA[i]!, generatedFrameRules);
      assert.equal(atA.length, 0, formatDiffs(`${p.name} / back at A`, atA) + context);
    });
  }

  it(`ICMP rate limit: ${BURST} TTL-1 datagrams at once get the kernel's burst of time exceeded`, () => {
    // icmp_ratelimit 1000 ms with a burst of 6 per destination (XRLIM_BURST_FACTOR); the burst takes
    // well under a second, so the kernel answers 6 of the 10.
    assert.equal(kernel.burst.length, 6, "kernel oracle: time exceeded messages for the burst");
    const diffs = diffFrameLists(kernel.burst, model.burst, generatedFrameRules);
    assert.equal(diffs.length, 0, formatDiffs("icmp rate limit burst", diffs));
  });
});
