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
import { KernelLab, kernelSkipReason } from "./harness/lab.js";
import { KernelCapture } from "./harness/capture.js";
import { frame, icmpEchoFrame, tcpFrame, TcpFlag, udpFrame, type Ipv4Spec } from "./harness/frames.js";
import { ModelLab } from "./harness/model.js";
import { describe as describeFrame, diffFrameLists, formatDiffs, generatedFrameRules } from "./harness/compare.js";
import { buildKernelRouted, buildModelRouted, NET } from "./harness/routed.js";

const MTU_B = 1400;
const fromA = (dst: string, more: Partial<Ipv4Spec> = {}): Ipv4Spec => ({ srcMac: NET.aMac, dstMac: NET.raMac, src: NET.a, dst, ...more });

interface Probe {
  readonly name: string;
  readonly frame: Uint8Array;
}

const PROBES: readonly Probe[] = [
  { name: "UDP forwarded to B; B's port unreachable back", frame: udpFrame({ ...fromA(NET.b, { id: 0x1001, df: true }), sport: 40001, dport: 9 }) },
  { name: "TTL 1: R sends time exceeded", frame: udpFrame({ ...fromA(NET.b, { id: 0x1002, ttl: 1 }), sport: 40002, dport: 9 }) },
  { name: "no route: R sends net unreachable", frame: udpFrame({ ...fromA("198.51.100.7", { id: 0x1003 }), sport: 40003, dport: 9 }) },
  { name: "DF over the 1400 MTU: R sends frag needed", frame: udpFrame({ ...fromA(NET.b, { id: 0x1004, df: true }), sport: 40004, dport: 9, payload: 1450 }) },
  { name: "no DF over the 1400 MTU: R fragments, B reassembles and answers", frame: udpFrame({ ...fromA(NET.b, { id: 0x1005 }), sport: 40005, dport: 9, payload: 1450 }) },
  { name: "TCP SYN to a closed port of B: RST", frame: tcpFrame({ ...fromA(NET.b, { id: 0x1006, df: true }), sport: 40006, dport: 9, seq: 1000, flags: TcpFlag.SYN }) },
  { name: "TCP ACK to a closed port of R: RST", frame: tcpFrame({ ...fromA(NET.ra, { id: 0x1007, df: true }), sport: 40007, dport: 9, seq: 2000, ack: 3000, flags: TcpFlag.ACK, payload: "data" }) },
  { name: "UDP to a closed port of R: port unreachable", frame: udpFrame({ ...fromA(NET.ra, { id: 0x1008 }), sport: 40008, dport: 9 }) },
  { name: "echo to R's far address: reply from 10.200.2.1", frame: icmpEchoFrame({ ...fromA(NET.rb, { id: 0x1009 }), ident: 0x5151, seq: 1 }) },
];

const MARKER_IDENT = 0x7e00;
const marker = (n: number): Uint8Array => icmpEchoFrame({ ...fromA(NET.b, { id: 0x7000 + n }), ident: MARKER_IDENT + n, seq: n });
/** n when f is marker n's echo (type 8) or echo reply (type 0), else 0. */
function markerOf(f: Uint8Array, type: number): number {
  if (!frame.isIpv4(f) || frame.ipProto(f) !== 1 || f[frame.l4(f)] !== type) return 0;
  const ident = read16(f, frame.l4(f) + 4);
  return ident > MARKER_IDENT && ident <= MARKER_IDENT + PROBES.length ? ident - MARKER_IDENT : 0;
}

/** Cuts a capture into per-probe slices, each ending with that probe's marker. */
function split(frames: readonly Uint8Array[], type: number): Uint8Array[][] {
  const out: Uint8Array[][] = PROBES.map(() => []);
  let n = 0;
  for (const f of frames) {
    out[Math.min(n, PROBES.length - 1)]!.push(f);
    const k = markerOf(f, type);
    if (k > 0) n = k;
  }
  return out;
}

interface Seen {
  readonly atA: Uint8Array[][];
  readonly atB: Uint8Array[][];
}

async function kernelRun(): Promise<Seen> {
  const lab = new KernelLab("rt");
  try {
    const t = buildKernelRouted(lab, { mtuB: MTU_B });
    const capA = await KernelCapture.start(lab, t.a, "va", "in");
    const capB = await KernelCapture.start(lab, t.b, "vb", "in");
    for (const [i, p] of PROBES.entries()) {
      await lab.send(t.a, "va", [p.frame, marker(i + 1)]);
      await capA.waitFor((fs) => fs.some((f) => markerOf(f, 0) === i + 1), `echo reply to marker ${i + 1}`);
    }
    return { atA: split(await capA.stop(), 0), atB: split(await capB.stop(), 8) };
  } finally {
    await lab.close();
  }
}

function modelRun(): Seen {
  const m = new ModelLab();
  const t = buildModelRouted(m, { mtuB: MTU_B });
  const atA = m.tap(t.va, "rx");
  const atB = m.tap(t.vb, "rx");
  const seen: Seen = { atA: [], atB: [] };
  let a = 0;
  let b = 0;
  for (const [i, p] of PROBES.entries()) {
    m.send(t.va, [p.frame, marker(i + 1)]);
    seen.atA.push(atA.slice(a));
    seen.atB.push(atB.slice(b));
    a = atA.length;
    b = atB.length;
  }
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
      const atB = diffFrameLists(kernel.atB[i]!, model.atB[i]!);
      assert.equal(atB.length, 0, formatDiffs(`${p.name} / forwarded to B`, atB) + context);
      const atA = diffFrameLists(kernel.atA[i]!, model.atA[i]!, generatedFrameRules);
      assert.equal(atA.length, 0, formatDiffs(`${p.name} / back at A`, atA) + context);
    });
  }
});
