// Neighbour resolution on the wire, kernel vs model (topology in harness/routed.ts, but R and B have
// no static entries for each other). A's first datagram to B makes R queue it and broadcast an ARP
// request; B answers (and learns R from the request), R sends the queued datagram, B's port
// unreachable goes back without B asking. The second datagram finds R's entry resolved. Compared:
// every frame on B's link in both directions (R's request, B's reply, the forwarded datagrams, B's
// answers), the frames back at A, and both neighbour entries' states afterwards.

import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { read16 } from "../../src/wire/bytes.js";
import { nudStateName } from "../../src/net/stack/neighbour.js";
import { formatMac } from "../../src/util/mac.js";
import { KernelLab, kernelSkipReason } from "./harness/lab.js";
import { KernelCapture } from "./harness/capture.js";
import { frame, icmpEchoFrame, ip4, udpFrame, type Ipv4Spec } from "./harness/frames.js";
import { ModelLab } from "./harness/model.js";
import { describeFrame, diffFrameLists, formatDiffs, generatedFrameRules } from "./harness/compare.js";
import { buildKernelRouted, buildModelRouted, NET } from "./harness/routed.js";

const fromA = (dst: string, more: Partial<Ipv4Spec> = {}): Ipv4Spec => ({ srcMac: NET.aMac, dstMac: NET.raMac, src: NET.a, dst, ...more });
const PROBES = [
  udpFrame({ ...fromA(NET.b, { id: 0x5001 }), sport: 43001, dport: 9 }),
  udpFrame({ ...fromA(NET.b, { id: 0x5002 }), sport: 43002, dport: 9 }),
];
const MARKER_IDENT = 0x7d00;
const marker = (n: number): Uint8Array => icmpEchoFrame({ ...fromA(NET.b, { id: 0x7100 + n }), ident: MARKER_IDENT + n, seq: n });
function markerOf(f: Uint8Array, type: number): number {
  if (!frame.isIpv4(f) || frame.ipProto(f) !== 1 || f[frame.l4(f)] !== type) return 0;
  const n = read16(f, frame.l4(f) + 4) - MARKER_IDENT;
  return n >= 1 && n <= PROBES.length ? n : 0;
}

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

/** B's delay_first_probe_time, raised in both so no unicast re-probe can fall inside the run. */
const DELAY_FIRST_PROBE_S = 60;

interface Seen {
  readonly atA: Uint8Array[][];
  /** Both directions on B's link: what R sent (echo request marker ends a slice) and what B sent. */
  readonly onB: Uint8Array[][];
  /** "ip neigh" state of R's entry for B and B's entry for R. */
  readonly neigh: string[];
}

async function kernelRun(): Promise<Seen> {
  const lab = new KernelLab("arp");
  try {
    const t = buildKernelRouted(lab, { arpBetweenRAndB: true });
    lab.sysctl(t.b, "net.ipv4.neigh.vb.delay_first_probe_time", DELAY_FIRST_PROBE_S);
    const capA = await KernelCapture.start(lab, t.a, "va", "in");
    const capB = await KernelCapture.start(lab, t.b, "vb", "inout");
    for (const [i, p] of PROBES.entries()) {
      await lab.send(t.a, "va", [p, marker(i + 1)]);
      await capA.waitFor((fs) => fs.some((f) => markerOf(f, 0) === i + 1), `echo reply to marker ${i + 1}`);
    }
    const neighOf = (ns: string, dev: string, addr: string): string => {
      const w = lab.ip(ns, "neigh", "show", addr, "dev", dev).trim().split(/\s+/);
      return `${addr} ${w[w.indexOf("lladdr") + 1] ?? "-"} ${w[w.length - 1] ?? ""}`;
    };
    const neigh = [neighOf(t.r, "vrb", NET.b), neighOf(t.b, "vb", NET.rb)];
    // On B's link the marker's echo reply (type 0) closes a probe's slice: it is B's last frame.
    return { atA: split(await capA.stop(), 0), onB: split(await capB.stop(), 0), neigh };
  } finally {
    await lab.close();
  }
}

function modelRun(): Seen {
  const m = new ModelLab();
  const t = buildModelRouted(m, { arpBetweenRAndB: true });
  const b = t.b!;
  b.neigh.parms(t.vb).delayFirstProbeNs = DELAY_FIRST_PROBE_S * 1e9;
  const atA = m.tap(t.va, "rx");
  const onB: Uint8Array[] = [];
  t.vb.taps.push({ onFrame: (_d, _dir, skb) => void onB.push(skb.bytes().slice()) });
  for (const [i, p] of PROBES.entries()) m.send(t.va, [p, marker(i + 1)]);
  const neighOf = (ns: NonNullable<typeof t.b>, dev: typeof t.vb, addr: string): string => {
    const e = ns.neigh.lookup(dev, ip4(addr));
    return `${addr} ${e === undefined ? "-" : formatMac(e.mac)} ${e === undefined ? "" : nudStateName(e.state)}`;
  };
  return { atA: split(atA, 0), onB: split(onB, 0), neigh: [neighOf(t.r, t.vrb, NET.b), neighOf(b, t.vb, NET.rb)] };
}

const skip = kernelSkipReason();

describe("neighbour resolution (ARP) between a router and a host: kernel vs model", { skip: skip ?? false, timeout: 120_000 }, () => {
  let kernel: Seen;
  let model: Seen;
  before(async () => {
    kernel = await kernelRun();
    model = modelRun();
  });

  for (const [i, name] of ["first datagram: R resolves B with ARP, then forwards it", "second datagram: resolved, forwarded at once"].entries()) {
    it(name, () => {
      const context = `\n  kernel on B's link:\n    ${kernel.onB[i]!.map(describeFrame).join("\n    ")}`;
      assert.equal(kernel.onB[i]!.filter((f) => frame.etherType(f) === 0x0806).length, i === 0 ? 2 : 0, `kernel oracle: ARP frames${context}`);
      const onB = diffFrameLists(kernel.onB[i]!, model.onB[i]!, generatedFrameRules);
      assert.equal(onB.length, 0, formatDiffs(`arp ${i + 1} on B's link`, onB) + context);
      const atA = diffFrameLists(kernel.atA[i]!, model.atA[i]!, generatedFrameRules);
      assert.equal(atA.length, 0, formatDiffs(`arp ${i + 1} at A`, atA));
    });
  }

  it("neighbour entries afterwards (R's for B, B's for R)", () => {
    assert.deepEqual(model.neigh, kernel.neigh);
  });
});
