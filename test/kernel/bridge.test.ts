// Bridge learning and flooding, kernel vs model. One bridge br0 with three veth ports p1..p3 whose
// peers h1..h3 are raw endpoints (no addresses, IPv6 off: nothing but the injected frames is on the
// wire). Each step sends one non-IP frame (EtherType 0x88b5) from a host, then a broadcast marker
// (0x88b6) from the same host and source MAC: once every other host has seen the marker, the step's
// frame has been bridged, so "this port did not see it" is an observation, not a timeout. Compared:
// the exact frame sequence each host receives, and the bridge's learned FDB (MAC -> port).

import { test } from "node:test";
import assert from "node:assert/strict";
import { BridgeDevice, FdbFlag } from "../../src/net/bridge.js";
import { formatMac } from "../../src/util/mac.js";
import { KernelLab, kernelSkipReason } from "./harness/lab.js";
import { waitUntil } from "./harness/wait.js";
import { KernelCapture } from "./harness/capture.js";
import { frame, mac, rawFrame } from "./harness/frames.js";
import { ModelLab, must } from "./harness/model.js";
import { diffFrameLists, formatDiffs, generatedFrameRules } from "./harness/compare.js";

const HOSTS = ["h1", "h2", "h3"] as const;
const HOST_MAC = { h1: "02:00:00:00:0a:01", h2: "02:00:00:00:0a:02", h3: "02:00:00:00:0a:03" } as const;
const PORT_MAC = { h1: "02:00:00:00:b0:01", h2: "02:00:00:00:b0:02", h3: "02:00:00:00:b0:03" } as const;
const BRIDGE_MAC = "02:00:00:00:b0:00";
const UNKNOWN = "02:00:00:00:0a:99";
const BROADCAST = "ff:ff:ff:ff:ff:ff";
const MULTICAST = "01:00:5e:00:00:fb";
type Host = (typeof HOSTS)[number];

interface Step {
  readonly from: Host;
  readonly srcMac: string;
  readonly dstMac: string;
  readonly why: string;
}

const STEPS: readonly Step[] = [
  { from: "h1", srcMac: HOST_MAC.h1, dstMac: HOST_MAC.h2, why: "unknown unicast is flooded (h1 learned on p1)" },
  { from: "h2", srcMac: HOST_MAC.h2, dstMac: HOST_MAC.h1, why: "learned unicast goes to p1 only" },
  { from: "h1", srcMac: HOST_MAC.h1, dstMac: HOST_MAC.h2, why: "now learned: p2 only" },
  { from: "h3", srcMac: HOST_MAC.h3, dstMac: BROADCAST, why: "broadcast to every other port" },
  { from: "h1", srcMac: HOST_MAC.h1, dstMac: HOST_MAC.h3, why: "learned from the broadcast: p3 only" },
  { from: "h2", srcMac: HOST_MAC.h2, dstMac: UNKNOWN, why: "unknown unicast flooded" },
  { from: "h1", srcMac: HOST_MAC.h1, dstMac: MULTICAST, why: "non-IP multicast flooded" },
  { from: "h3", srcMac: HOST_MAC.h2, dstMac: HOST_MAC.h1, why: "h2's MAC moves to p3" },
  { from: "h1", srcMac: HOST_MAC.h1, dstMac: HOST_MAC.h2, why: "follows the move: p3 only" },
  { from: "h2", srcMac: HOST_MAC.h2, dstMac: HOST_MAC.h2, why: "h2's MAC moves back; frame to itself filtered on the ingress port" },
];

const MARKER_TYPE = 0x88b6;
const stepFrame = (s: Step, n: number): Uint8Array => rawFrame({ srcMac: s.srcMac, dstMac: s.dstMac }, n);
const markerFrame = (s: Step, n: number): Uint8Array => rawFrame({ srcMac: s.srcMac, dstMac: BROADCAST }, n, MARKER_TYPE);
const isMarker = (f: Uint8Array, n: number): boolean => frame.etherType(f) === MARKER_TYPE && frame.tag(f) === n;

interface Outcome {
  readonly seen: Record<Host, Uint8Array[]>;
  /** Learned (dynamic) FDB entries as "mac port". */
  readonly fdb: string[];
}

async function kernelRun(): Promise<Outcome> {
  const lab = new KernelLab("br");
  try {
    const br = lab.netns("br");
    const hosts = lab.netns("hosts");
    // Multicast snooping off: with it on (the kernel default) the bridge joins 224.0.0.106 and sends
    // IGMPv3 reports out of every port when it comes up, which the model does not do (see README).
    lab.ip(br, "link", "add", "br0", "address", BRIDGE_MAC, "type", "bridge", "mcast_snooping", "0");
    for (const h of HOSTS) {
      lab.veth(hosts, h, HOST_MAC[h], br, `p${h.slice(1)}`, PORT_MAC[h]);
      lab.ip(br, "link", "set", `p${h.slice(1)}`, "master", "br0");
    }
    lab.ip(br, "link", "set", "br0", "up");
    await waitUntil(() => (lab.exec(br, "bridge", ["link", "show"]).match(/state forwarding/g) ?? []).length === 3, "bridge ports to forward");
    const caps = new Map<Host, KernelCapture>();
    for (const h of HOSTS) caps.set(h, await KernelCapture.start(lab, hosts, h, "in"));
    for (const [i, s] of STEPS.entries()) {
      await lab.send(hosts, s.from, [stepFrame(s, i + 1), markerFrame(s, i + 1)]);
      for (const h of HOSTS) {
        if (h !== s.from) await caps.get(h)!.waitFor((fs) => fs.some((f) => isMarker(f, i + 1)), `marker ${i + 1} at ${h}`);
      }
    }
    const seen = {} as Record<Host, Uint8Array[]>;
    for (const h of HOSTS) seen[h] = await caps.get(h)!.stop();
    const fdb = lab
      .exec(br, "bridge", ["fdb", "show", "br", "br0"])
      .split("\n")
      .filter((l) => l.includes("master br0") && !l.includes("permanent") && !l.includes("static"))
      .map((l) => {
        const [m, , dev] = l.split(" ");
        return `${m} ${dev}`;
      })
      .sort();
    return { seen, fdb };
  } finally {
    await lab.close();
  }
}

function modelRun(): Outcome {
  const m = new ModelLab();
  const ns = m.ns("br");
  const bridge = new BridgeDevice(m.world, "br0", mac(BRIDGE_MAC), { macSet: true });
  must(ns.addDevice(bridge));
  const ends = new Map<Host, ReturnType<ModelLab["veth"]>[0]>();
  const seen = {} as Record<Host, Uint8Array[]>;
  for (const h of HOSTS) {
    const [host, port] = m.veth(null, h, HOST_MAC[h], ns, `p${h.slice(1)}`, PORT_MAC[h]);
    must(bridge.addPort(port));
    ends.set(h, host);
    seen[h] = m.tap(host, "rx");
  }
  for (const [i, s] of STEPS.entries()) m.send(ends.get(s.from)!, [stepFrame(s, i + 1), markerFrame(s, i + 1)]);
  const fdb = bridge
    .fdbEntries()
    .filter((e) => (e.flags & (FdbFlag.LOCAL | FdbFlag.STATIC)) === 0)
    .map((e) => `${formatMac(e.mac)} ${e.dev?.name ?? "br0"}`)
    .sort();
  return { seen, fdb };
}

const skip = kernelSkipReason();

test("bridge learning and flooding: every host receives what the kernel delivers to it", { skip: skip ?? false, timeout: 120_000 }, async () => {
  const kernel = await kernelRun();
  const model = modelRun();
  // Sanity of the oracle itself: the kernel flooded step 1 to h2 and h3 and sent step 2 to h1 only.
  const tags = (h: Host): number[] => kernel.seen[h].filter((f) => frame.etherType(f) === 0x88b5).map(frame.tag);
  assert.ok(tags("h2").includes(1) && tags("h3").includes(1), "kernel floods unknown unicast");
  assert.ok(tags("h1").includes(2) && !tags("h3").includes(2), "kernel forwards learned unicast to one port");
  const summary = (fs: Uint8Array[]): string => fs.map((f) => `${frame.etherType(f) === MARKER_TYPE ? "m" : "f"}${frame.tag(f)}`).join(" ");
  for (const h of HOSTS) {
    assert.equal(summary(model.seen[h]), summary(kernel.seen[h]), `frames (f = step frame, m = marker) received by ${h}: model vs kernel`);
    const diffs = diffFrameLists(kernel.seen[h], model.seen[h]);
    assert.equal(diffs.length, 0, formatDiffs(`bridge ${h}`, diffs));
  }
  assert.deepEqual(model.fdb, kernel.fdb, "learned FDB entries (mac port)");
});

// With multicast snooping on (the kernel's default for a new bridge), the bridge joins the
// all-snoopers group 224.0.0.106 when it comes up and sends an IGMPv3 report for it out of every port.
const IGMP_TODO =
  "model disagrees: a bridge with mcast_snooping 1 (the kernel default) sends an IGMPv3 membership report " +
  "(from 0.0.0.0 to 224.0.0.22, TTL 1, DF, router alert option, TOS 0xc0, joining 224.0.0.106) out of each port when it " +
  "comes up; the model's BridgeDevice sends nothing (it has no multicast snooping)";

async function kernelIgmp(): Promise<Uint8Array | undefined> {
  const lab = new KernelLab("brmc");
  try {
    const br = lab.netns("br");
    const hosts = lab.netns("hosts");
    lab.ip(br, "link", "add", "br0", "address", BRIDGE_MAC, "type", "bridge");
    lab.veth(hosts, "h1", HOST_MAC.h1, br, "p1", PORT_MAC.h1);
    lab.ip(br, "link", "set", "p1", "master", "br0");
    const cap = await KernelCapture.start(lab, hosts, "h1", "in");
    lab.ip(br, "link", "set", "br0", "up");
    const isIgmp = (f: Uint8Array): boolean => frame.isIpv4(f) && frame.ipProto(f) === 2;
    const frames = await cap.waitFor((fs) => fs.some(isIgmp), "an IGMP report from the bridge");
    await cap.stop();
    return frames.find(isIgmp);
  } finally {
    await lab.close();
  }
}

test("a bridge with multicast snooping announces itself like the kernel's", { skip: skip ?? false, todo: IGMP_TODO, timeout: 60_000 }, async () => {
  const kernel = await kernelIgmp();
  assert.ok(kernel !== undefined && frame.ipDst(kernel) === 0xe0000016, "kernel oracle: an IGMPv3 report to 224.0.0.22");
  const m = new ModelLab();
  const ns = m.ns("br");
  const bridge = new BridgeDevice(m.world, "br0", mac(BRIDGE_MAC), { macSet: true });
  must(ns.addDevice(bridge));
  const [h1, p1] = m.veth(null, "h1", HOST_MAC.h1, ns, "p1", PORT_MAC.h1);
  must(bridge.addPort(p1));
  const seen = m.tap(h1, "rx");
  m.sim.runUntil(m.sim.now + 2_000_000_000);
  const diffs = diffFrameLists([kernel], seen.slice(0, 1), generatedFrameRules);
  assert.equal(diffs.length, 0, formatDiffs("bridge IGMP report", diffs));
});
