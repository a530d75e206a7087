// Capture replay into the seed lab (examples/seed-lab), in process: crafted SYNs replayed at a pod and at a
// node reach web1, are denied by policy with the explanation, or are masqueraded and denied as the seed's
// NodePort + ipBlock experiment says. tshark reading the per-interface pcaps is the oracle for what each
// device saw (addresses after DNAT/SNAT, IPIP outer headers); the ledger must balance.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { replayCapture, type ReplayPoint, type ReplayReport, type ReplayTiming } from "../../src/cluster/replay/index.js";
import { loadFiles } from "../../src/k8s/load.js";
import { openCapture, PcapWriter } from "../../src/pcap/index.js";
import { formatIPv4, parseIPv4 } from "../../src/util/ip.js";
import { DropReason } from "../../datapath/reasons.js";
import { hasTshark, labFiles, sll2, tcpPacket, tmp, tsharkFields, TCP_SYN, writePcap } from "./replay-support.js";

const NO_TSHARK = hasTshark ? false : "tshark is not installed (it is the oracle for the recorded pcaps)";
const ip = (text: string): number => parseIPv4(text)!;

/** One built lab per policy, shared by the tests (each replays flows of its own ports). */
const labs = new Map<string, Promise<ClusterRuntime>>();
function lab(policy?: string): Promise<ClusterRuntime> {
  const key = policy ?? "";
  let rt = labs.get(key);
  if (rt === undefined) {
    rt = buildLab(policy);
    labs.set(key, rt);
  }
  return rt;
}

async function buildLab(policy?: string): Promise<ClusterRuntime> {
  const loaded = await loadFiles(labFiles(policy), { namespace: "web" });
  const built = buildCluster(loaded);
  if (!built.ok) assert.fail(formatClusterError(built.error));
  return built.value;
}

function podPoint(rt: ClusterRuntime, key: string): ReplayPoint {
  return { label: key, device: rt.pod(key)!.iface, direction: "transmit" };
}

function nodePoint(rt: ClusterRuntime, node: string, iface = "eth0"): ReplayPoint {
  return { label: `node/${node}${iface === "eth0" ? "" : `/${iface}`}`, device: rt.node(node)!.ns.deviceByName(iface)!, direction: "receive" };
}

/** Replays `pcap` at `point`, recording every interface into a fresh folder. */
async function replay(rt: ClusterRuntime, pcap: string, point: ReplayPoint, timing: ReplayTiming = "fast"): Promise<{ report: ReplayReport; dir: string }> {
  const dir = tmp();
  const reader = openCapture(pcap, { lenient: true });
  const report = await replayCapture(rt, reader, reader.summary, {
    point,
    timing,
    record: (name, linkType) => PcapWriter.toFile(join(dir, `${name}.pcap`), { linkType, resolution: "ns" }),
  });
  return { report, dir };
}

function assertBalanced(r: ReplayReport): void {
  const l = r.ledger;
  assert.equal(l.injected + l.generated, l.delivered + l.dropped + l.inFlight, "injected + generated = delivered + dropped + in flight");
  assert.equal(l.inFlight, 0, "nothing left in flight after the run until idle");
  assert.equal(r.drops.reduce((n, g) => n + g.count, 0), l.dropped, "drop groups add up to the ledger's drops");
}

const frames = (r: ReplayReport): Map<string, number> => new Map(r.interfaces.map((i) => [i.name, i.frames]));

describe("replay into the seed lab", () => {
  it("a SYN from web/test to web1:80, replayed at web/test, reaches web1, which answers", { skip: NO_TSHARK }, async () => {
    const rt = await lab();
    const test = rt.pod("web/test")!;
    const web1 = rt.pod("web/web1")!;
    const pcap = await writePcap(join(tmp(), "syn.pcap"), 101, [tcpPacket(test.ip, web1.ip, 40000, 80, TCP_SYN)]);
    const { report, dir } = await replay(rt, pcap, podPoint(rt, "web/test"));
    assertBalanced(report);
    assert.equal(report.ledger.injected, 1);
    assert.ok(report.drops.every((g) => g.injected === 0), "the injected SYN is not dropped");
    const seen = tsharkFields(join(dir, "web_web1_eth0.pcap"), ["ip.src", "ip.dst", "tcp.srcport", "tcp.dstport", "tcp.flags.syn", "tcp.flags.ack"], "tcp");
    assert.deepEqual(seen[0], [formatIPv4(test.ip), formatIPv4(web1.ip), "40000", "80", "1", "0"], "web1's eth0 received the SYN unchanged");
    assert.deepEqual(seen[1], [formatIPv4(web1.ip), formatIPv4(test.ip), "80", "40000", "1", "1"], "web1 answered with a SYN-ACK");
    // The frame built for the raw IP packet left web/test's eth0 towards Calico's host veth (ee:ee:ee:ee:ee:ee).
    const out = tsharkFields(join(dir, "web_test_eth0.pcap"), ["eth.src", "eth.dst", "tcp.flags.syn", "tcp.flags.ack"], "tcp.flags.syn==1 && tcp.flags.ack==0");
    assert.deepEqual(out, [[formatMacOf(test.iface.mac), "ee:ee:ee:ee:ee:ee", "1", "0"]]);
  });

  it("cyh/test's SYN to web1 (SLL2 capture) is dropped by policy 01 with the explanation", { skip: NO_TSHARK }, async () => {
    const rt = await lab("01-ingress-from-pods-run-test.yaml");
    const cyh = rt.pod("cyh/test")!;
    const web1 = rt.pod("web/web1")!;
    const pcap = await writePcap(join(tmp(), "cyh.pcap"), 276, [sll2(tcpPacket(cyh.ip, web1.ip, 40001, 80, TCP_SYN))]);
    const { report, dir } = await replay(rt, pcap, podPoint(rt, "cyh/test"));
    assertBalanced(report);
    const denied = report.drops.find((g) => g.reason === DropReason.POLICY_DENIED);
    assert.ok(denied !== undefined, "a POLICY_DENIED group");
    assert.equal(denied.name, "POLICY_DENIED");
    assert.equal(denied.injected, 1);
    const t = denied.traces[0]!;
    assert.deepEqual(t.origin, { index: 1, offset: 24 }, "the first record of a classic pcap starts after the 24-byte header");
    assert.equal(t.record.node, "worker32.cyh.cloud");
    assert.match(t.record.explanation ?? "", /not in namespace web/);
    assert.ok(t.hops.some((h) => h.note.includes("encap ipip")), "the trace shows the IPIP encapsulation on worker31");
    assert.equal(frames(report).get("web_web1_eth0"), undefined, "nothing reached web1's interface");
    // What worker31 put on the wire: IPIP from 10.1.8.31 to 10.1.8.32 carrying the SYN.
    const wire = tsharkFields(join(dir, "worker31.cyh.cloud_eth0.pcap"), ["ip.src", "ip.dst", "ip.proto", "tcp.dstport"], "ip.proto==4");
    assert.deepEqual(wire, [["10.1.8.31,10.224.16.129", "10.1.8.32,10.224.187.194", "4,6", "80"]]);
  });

  it("a SYN from the client to NodePort 30790 at node/worker31 is masqueraded to tunl0's address and denied on worker32 (policy 05)", { skip: NO_TSHARK }, async () => {
    const rt = await lab("05-ingress-from-ipblock.yaml");
    const web1 = rt.pod("web/web1")!;
    const worker31 = rt.node("worker31.cyh.cloud")!;
    const tunl0 = formatIPv4(worker31.ns.primaryAddress(worker31.ns.deviceByName("tunl0")!));
    const pcap = await writePcap(join(tmp(), "np.pcap"), 101, [
      tcpPacket(ip("10.1.8.100"), worker31.ip, 50000, 30790, TCP_SYN),
      tcpPacket(ip("10.1.8.100"), rt.node("worker32.cyh.cloud")!.ip, 50001, 30790, TCP_SYN),
    ]);
    const { report, dir } = await replay(rt, pcap, nodePoint(rt, "worker31.cyh.cloud"));
    assertBalanced(report);
    const denied = report.drops.find((g) => g.reason === DropReason.POLICY_DENIED)!;
    assert.equal(denied.injected, 1);
    const d = denied.traces[0]!.record;
    assert.equal(d.node, "worker32.cyh.cloud");
    assert.equal(formatIPv4(d.before.src), "10.1.8.100");
    assert.equal(d.before.dstPort, 30790);
    assert.equal(formatIPv4(d.after.src), tunl0, "masqueraded to worker31's tunl0 address");
    assert.equal(formatIPv4(d.after.dst), formatIPv4(web1.ip));
    assert.match(d.explanation ?? "", /ipBlock 10\.1\.8\.0\/24 does not contain/);
    // tshark: the packet as worker32's tunl0 received it (raw IP) is the rewritten one.
    const onTunl0 = tsharkFields(join(dir, "worker32.cyh.cloud_tunl0.pcap"), ["ip.src", "ip.dst", "tcp.dstport"], "tcp.flags.syn==1 && tcp.flags.ack==0");
    assert.deepEqual(onTunl0, [[tunl0, formatIPv4(web1.ip), "80"]]);
    // The second SYN entered worker31 too but was addressed to worker32's NodePort: worker31 routes it on
    // the underlay to worker32, whose policy (FORWARD, before POSTROUTING) sees 10.1.8.100 and allows it;
    // kube-proxy then masquerades it (externalTrafficPolicy Cluster), so web1 sees worker32's address.
    const atWeb1 = tsharkFields(join(dir, "web_web1_eth0.pcap"), ["ip.src", "ip.dst", "tcp.dstport"], "tcp.flags.syn==1 && tcp.flags.ack==0");
    assert.deepEqual(atWeb1, [["10.1.8.32", formatIPv4(web1.ip), "80"]]);
    const toWorker32 = tsharkFields(join(dir, "worker32.cyh.cloud_eth0.pcap"), ["ip.src", "ip.dst", "tcp.srcport", "tcp.dstport"], "tcp.flags.syn==1 && tcp.flags.ack==0 && !ip.proto==4");
    assert.deepEqual(toWorker32, [["10.1.8.100", "10.1.8.32", "50001", "30790"]], "forwarded by worker31 unchanged");
  });

  it("raw IP replayed into node/worker32/tunl0 (an L3 device) is handled as decapsulated traffic", async () => {
    const rt = await lab("01-ingress-from-pods-run-test.yaml");
    const pcap = await writePcap(join(tmp(), "tun.pcap"), 101, [tcpPacket(rt.pod("cyh/test")!.ip, rt.pod("web/web1")!.ip, 40002, 80, TCP_SYN)]);
    const { report } = await replay(rt, pcap, nodePoint(rt, "worker32.cyh.cloud", "tunl0"));
    assertBalanced(report);
    const d = report.drops.find((g) => g.reason === DropReason.POLICY_DENIED)!.traces[0]!.record;
    assert.deepEqual([d.node, d.device, d.hook], ["worker32.cyh.cloud", "tunl0", "FORWARD"]);
    assert.equal(report.interfaces.find((i) => i.name === "worker32.cyh.cloud_tunl0")?.linkType, 101);
  });

  it("--timing original keeps the capture's spacing; fast puts packets 1 us apart", { skip: NO_TSHARK }, async () => {
    const rt = await lab();
    const test = rt.pod("web/test")!;
    const web2 = rt.pod("web/web2")!;
    const t0 = 1_700_000_000_000_000_000n;
    const pcap = await writePcap(join(tmp(), "t.pcap"), 101, [tcpPacket(test.ip, web2.ip, 41000, 80, TCP_SYN), tcpPacket(test.ip, web2.ip, 41001, 80, TCP_SYN)], [t0, t0 + 250_000_000n]);
    for (const [timing, gap] of [["original", 0.25], ["fast", 0.000001]] as const) {
      const { report, dir } = await replay(rt, pcap, podPoint(rt, "web/test"), timing);
      assertBalanced(report);
      assert.equal(report.time.lastNs! - report.time.firstNs!, Math.round(gap * 1e9));
      const ts = tsharkFields(join(dir, "web_test_eth0.pcap"), ["frame.time_epoch"], "tcp.flags.syn==1 && tcp.flags.ack==0").map((f) => Number(f[0]));
      assert.equal(ts.length, 2);
      assert.ok(Math.abs(ts[1]! - ts[0]! - gap) < 1e-7, `${timing}: ${ts[1]! - ts[0]!} s apart`);
      assert.ok(Math.abs(ts[0]! - report.time.firstNs! / 1e9) < 1e-6, "pcap timestamps are simulated time");
    }
  });
});

function formatMacOf(mac: number): string {
  return mac.toString(16).padStart(12, "0").replace(/(..)(?!$)/g, "$1:");
}
