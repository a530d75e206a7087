// br_netfilter, kernel vs model: with net.bridge.bridge-nf-call-iptables=1 (what a new namespace starts
// with once br_netfilter is loaded) IPv4 frames bridged between two ports of br0 traverse the
// namespace's iptables FORWARD chain and conntrack; with 0 they do not. The test sets the sysctl
// explicitly in both phases. h1 and h2 are raw endpoints; a FORWARD rule drops UDP to port 9 and a
// ctstate rule makes conntrack track the namespace. Compared per phase: the frames h2 receives and
// the bridge namespace's conntrack table.

import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { BridgeDevice } from "../../src/net/bridge.js";
import type { NfRuleSpec } from "../../src/net/netfilter/table/spec.js";
import { KernelLab, kernelSkipReason } from "./harness/lab.js";
import { KernelCapture } from "./harness/capture.js";
import { frame, mac, rawFrame, udpFrame } from "./harness/frames.js";
import { ModelLab, must } from "./harness/model.js";
import { diffFrameLists, formatDiffs } from "./harness/compare.js";
import { kernelConntrack, modelConntrack } from "./harness/conntrack.js";
import { waitUntil } from "./harness/wait.js";
import { existsSync } from "node:fs";
import { formatIPv4 } from "../../src/util/ip.js";

const H1 = { mac: "02:00:00:05:00:01", ip: "10.200.5.1" } as const;
const H2 = { mac: "02:00:00:05:00:02", ip: "10.200.5.2" } as const;
const BRIDGE_MAC = "02:00:00:05:00:fe";
const MARKER_TYPE = 0x88b6;

const RULES: readonly { readonly iptables: readonly string[]; readonly spec: NfRuleSpec }[] = [
  { iptables: ["-p", "udp", "--dport", "9", "-j", "DROP"], spec: { proto: "udp", dport: 9, target: { kind: "DROP" } } },
  {
    iptables: ["-m", "conntrack", "--ctstate", "NEW,ESTABLISHED", "-j", "ACCEPT"],
    spec: { ctstate: { states: ["NEW", "ESTABLISHED"] }, target: { kind: "ACCEPT" } },
  },
];

const PHASES = [
  { callIptables: 1, sports: [41001, 41002] },
  { callIptables: 0, sports: [41003, 41004] },
] as const;

/** UDP to port 9 (dropped by FORWARD when iptables sees it) and to port 10, then a broadcast marker. */
function phaseFrames(phase: number): Uint8Array[] {
  const [s9, s10] = PHASES[phase]!.sports;
  const l = { srcMac: H1.mac, dstMac: H2.mac, src: H1.ip, dst: H2.ip };
  return [
    udpFrame({ ...l, id: 0x3000 + s9, sport: s9, dport: 9 }),
    udpFrame({ ...l, id: 0x3000 + s10, sport: s10, dport: 10 }),
    rawFrame({ srcMac: H1.mac, dstMac: "ff:ff:ff:ff:ff:ff" }, phase + 1, MARKER_TYPE),
  ];
}

interface Seen {
  readonly atH2: Uint8Array[][];
  readonly conntrack: string[][];
}

async function kernelRun(): Promise<Seen> {
  const lab = new KernelLab("brnf");
  try {
    const s = lab.netns("s");
    const h = lab.netns("h");
    lab.ip(s, "link", "add", "br0", "address", BRIDGE_MAC, "type", "bridge", "mcast_snooping", "0");
    lab.veth(h, "h1", H1.mac, s, "q1", "02:00:00:05:01:01");
    lab.veth(h, "h2", H2.mac, s, "q2", "02:00:00:05:01:02");
    for (const q of ["q1", "q2"]) lab.ip(s, "link", "set", q, "master", "br0");
    lab.ip(s, "link", "set", "br0", "up");
    await waitUntil(() => (lab.exec(s, "bridge", ["link", "show"]).match(/state forwarding/g) ?? []).length === 2, "bridge ports to forward");
    for (const r of RULES) lab.exec(s, "iptables", ["-A", "FORWARD", ...r.iptables]);
    const cap = await KernelCapture.start(lab, h, "h2", "in");
    const seen: Seen = { atH2: [], conntrack: [] };
    let before = 0;
    for (const [i, p] of PHASES.entries()) {
      lab.sysctl(s, "net.bridge.bridge-nf-call-iptables", p.callIptables);
      await lab.send(h, "h1", phaseFrames(i));
      const all = await cap.waitFor((fs) => fs.some((f) => frame.etherType(f) === MARKER_TYPE && frame.tag(f) === i + 1), `marker ${i + 1} at h2`);
      seen.atH2.push(all.slice(before));
      before = all.length;
      seen.conntrack.push(kernelConntrack(lab, s));
    }
    await cap.stop();
    return seen;
  } finally {
    await lab.close();
  }
}

function modelRun(): Seen {
  const m = new ModelLab();
  const s = m.ns("s");
  const bridge = new BridgeDevice(m.world, "br0", mac(BRIDGE_MAC), { macSet: true });
  must(s.addDevice(bridge));
  const [h1, q1] = m.veth(null, "h1", H1.mac, s, "q1", "02:00:00:05:01:01");
  const [h2, q2] = m.veth(null, "h2", H2.mac, s, "q2", "02:00:00:05:01:02");
  must(bridge.addPort(q1));
  must(bridge.addPort(q2));
  for (const r of RULES) must(s.netfilter.table("filter").append("FORWARD", r.spec));
  const atH2 = m.tap(h2, "rx");
  const seen: Seen = { atH2: [], conntrack: [] };
  let before = 0;
  for (const [i, p] of PHASES.entries()) {
    s.sysctl.bridgeNfCallIptables = p.callIptables === 1;
    m.send(h1, phaseFrames(i));
    seen.atH2.push(atH2.slice(before));
    before = atH2.length;
    seen.conntrack.push(modelConntrack(s.netfilter.conntrack));
  }
  return seen;
}

const skip = kernelSkipReason() ?? (existsSync("/proc/sys/net/bridge/bridge-nf-call-iptables") ? null : "br_netfilter is not loaded (no /proc/sys/net/bridge)");

describe("br_netfilter: bridged IPv4 through iptables, kernel vs model", { skip: skip ?? false, timeout: 120_000 }, () => {
  let kernel: Seen;
  let model: Seen;
  before(async () => {
    kernel = await kernelRun();
    model = modelRun();
  });

  for (const [i, p] of PHASES.entries()) {
    it(`bridge-nf-call-iptables=${p.callIptables}: frames delivered to h2`, () => {
      const dports = kernel.atH2[i]!.filter(frame.isIpv4).map(frame.dstPort);
      assert.deepEqual(dports, p.callIptables === 1 ? [10] : [9, 10], "kernel oracle: FORWARD drops port 9 only when bridged frames pass iptables");
      const diffs = diffFrameLists(kernel.atH2[i]!, model.atH2[i]!);
      assert.equal(diffs.length, 0, formatDiffs(`br_netfilter=${p.callIptables} h2`, diffs));
    });

    it(`bridge-nf-call-iptables=${p.callIptables}: conntrack of the bridge namespace`, () => {
      const tracked = (sport: number): boolean => kernel.conntrack[i]!.some((l) => l.includes(`sport=${sport} `));
      // Kernel oracle: the forwarded datagram is tracked; the dropped one never got confirmed; with the
      // sysctl at 0 nothing new is tracked.
      assert.deepEqual([...PHASES[0].sports, ...PHASES[1].sports].map(tracked), [false, true, false, false], kernel.conntrack[i]!.join("\n"));
      assert.deepEqual(model.conntrack[i], kernel.conntrack[i]);
    });
  }
});

// A service address on a bridge, as kube-proxy's iptables mode has it with a bridge CNI: h1 sends
// to VIP:53 through the bridge's address (its gateway); R's PREROUTING DNATs it to h2:5353 and routes
// it back out of br0. h2 answers h1 directly (same L2 segment), so the reply is bridged, not routed:
// only with bridge-nf-call-iptables=1 does it pass conntrack and get its source translated back to
// VIP:53; with 0 h1 sees the reply from h2's own address. Compared per phase: the frames at h1 and h2,
// and the conntrack table.
const GW = { mac: BRIDGE_MAC, ip: "10.200.5.254" } as const;
const VIP = "198.51.100.10";
const SVC_PHASES = [
  { callIptables: 1, sport: 42001 },
  { callIptables: 0, sport: 42002 },
] as const;

function svcRequest(phase: number): Uint8Array[] {
  const sport = SVC_PHASES[phase]!.sport;
  return [
    udpFrame({ srcMac: H1.mac, dstMac: GW.mac, src: H1.ip, dst: VIP, id: 0x3100 + phase, sport, dport: 53, payload: "query" }),
    rawFrame({ srcMac: H1.mac, dstMac: "ff:ff:ff:ff:ff:ff" }, 0x10 + phase, MARKER_TYPE),
  ];
}

function svcReply(phase: number): Uint8Array[] {
  const sport = SVC_PHASES[phase]!.sport;
  return [
    udpFrame({ srcMac: H2.mac, dstMac: H1.mac, src: H2.ip, dst: H1.ip, id: 0x3200 + phase, sport: 5353, dport: sport, payload: "answer" }),
    rawFrame({ srcMac: H2.mac, dstMac: "ff:ff:ff:ff:ff:ff" }, 0x20 + phase, MARKER_TYPE),
  ];
}

const DNAT_RULE = {
  iptables: ["-t", "nat", "-A", "PREROUTING", "-d", `${VIP}/32`, "-p", "udp", "--dport", "53", "-j", "DNAT", "--to-destination", `${H2.ip}:5353`],
  spec: { dst: `${VIP}/32`, proto: "udp", dport: 53, target: { kind: "DNAT", to: `${H2.ip}:5353` } } satisfies NfRuleSpec,
};

interface SvcSeen {
  readonly atH1: Uint8Array[][];
  readonly atH2: Uint8Array[][];
  readonly conntrack: string[][];
}

const hasMarker = (tag: number) => (fs: Uint8Array[]): boolean => fs.some((f) => frame.etherType(f) === MARKER_TYPE && frame.tag(f) === tag);

async function kernelService(): Promise<SvcSeen> {
  const lab = new KernelLab("brsvc");
  try {
    const s = lab.netns("s");
    const h = lab.netns("h");
    lab.ip(s, "link", "add", "br0", "address", BRIDGE_MAC, "type", "bridge", "mcast_snooping", "0");
    lab.veth(h, "h1", H1.mac, s, "q1", "02:00:00:05:01:01");
    lab.veth(h, "h2", H2.mac, s, "q2", "02:00:00:05:01:02");
    for (const q of ["q1", "q2"]) lab.ip(s, "link", "set", q, "master", "br0");
    lab.ip(s, "link", "set", "br0", "up");
    lab.ip(s, "addr", "add", `${GW.ip}/24`, "dev", "br0");
    lab.sysctl(s, "net.ipv4.ip_forward", 1);
    for (const x of [H1, H2]) lab.ip(s, "neigh", "add", x.ip, "lladdr", x.mac, "dev", "br0", "nud", "permanent");
    lab.txChecksumOff(s, "br0", "q1", "q2");
    await waitUntil(() => (lab.exec(s, "bridge", ["link", "show"]).match(/state forwarding/g) ?? []).length === 2, "bridge ports to forward");
    lab.exec(s, "iptables", DNAT_RULE.iptables);
    const cap1 = await KernelCapture.start(lab, h, "h1", "in");
    const cap2 = await KernelCapture.start(lab, h, "h2", "in");
    const seen: SvcSeen = { atH1: [], atH2: [], conntrack: [] };
    let n1 = 0;
    let n2 = 0;
    for (const [i, p] of SVC_PHASES.entries()) {
      lab.sysctl(s, "net.bridge.bridge-nf-call-iptables", p.callIptables);
      await lab.send(h, "h1", svcRequest(i));
      await cap2.waitFor(hasMarker(0x10 + i), `request marker ${i} at h2`);
      await lab.send(h, "h2", svcReply(i));
      const at1 = await cap1.waitFor(hasMarker(0x20 + i), `reply marker ${i} at h1`);
      const at2 = await cap2.frames();
      seen.atH1.push(at1.slice(n1));
      seen.atH2.push(at2.slice(n2));
      n1 = at1.length;
      n2 = at2.length;
      seen.conntrack.push(kernelConntrack(lab, s));
    }
    return seen;
  } finally {
    await lab.close();
  }
}

function modelService(): SvcSeen {
  const m = new ModelLab();
  const s = m.ns("s");
  const bridge = new BridgeDevice(m.world, "br0", mac(BRIDGE_MAC), { macSet: true });
  must(s.addDevice(bridge));
  const [h1, q1] = m.veth(null, "h1", H1.mac, s, "q1", "02:00:00:05:01:01");
  const [h2, q2] = m.veth(null, "h2", H2.mac, s, "q2", "02:00:00:05:01:02");
  must(bridge.addPort(q1));
  must(bridge.addPort(q2));
  m.addr(s, bridge, `${GW.ip}/24`);
  s.sysctl.ipForward = true;
  for (const x of [H1, H2]) m.neigh(s, bridge, x.ip, x.mac);
  must(s.netfilter.table("nat").append("PREROUTING", DNAT_RULE.spec));
  const at1 = m.tap(h1, "rx");
  const at2 = m.tap(h2, "rx");
  const seen: SvcSeen = { atH1: [], atH2: [], conntrack: [] };
  let n1 = 0;
  let n2 = 0;
  for (const [i, p] of SVC_PHASES.entries()) {
    s.sysctl.bridgeNfCallIptables = p.callIptables === 1;
    m.send(h1, svcRequest(i));
    m.send(h2, svcReply(i));
    seen.atH1.push(at1.slice(n1));
    seen.atH2.push(at2.slice(n2));
    n1 = at1.length;
    n2 = at2.length;
    seen.conntrack.push(modelConntrack(s.netfilter.conntrack));
  }
  return seen;
}

describe("a DNATed service on a bridge: the bridged reply needs br_netfilter, kernel vs model", { skip: skip ?? false, timeout: 120_000 }, () => {
  let kernel: SvcSeen;
  let model: SvcSeen;
  before(async () => {
    kernel = await kernelService();
    model = modelService();
  });

  for (const [i, p] of SVC_PHASES.entries()) {
    it(`bridge-nf-call-iptables=${p.callIptables}: h2 gets the DNATed request, h1 the reply`, () => {
      const replyFrom = kernel.atH1[i]!.filter(frame.isIpv4).map((f) => `${formatIPv4(frame.ipSrc(f))}:${frame.srcPort(f)}`);
      assert.deepEqual(replyFrom, [p.callIptables === 1 ? `${VIP}:53` : `${H2.ip}:5353`], "kernel oracle: source of the reply at h1");
      const d2 = diffFrameLists(kernel.atH2[i]!, model.atH2[i]!);
      assert.equal(d2.length, 0, formatDiffs(`bridge service ${p.callIptables} at h2`, d2));
      const d1 = diffFrameLists(kernel.atH1[i]!, model.atH1[i]!);
      assert.equal(d1.length, 0, formatDiffs(`bridge service ${p.callIptables} at h1`, d1));
    });

    it(`bridge-nf-call-iptables=${p.callIptables}: conntrack`, () => {
      assert.deepEqual(model.conntrack[i], kernel.conntrack[i]);
    });
  }
});
