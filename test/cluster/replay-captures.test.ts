// Replaying real captures (../shared/pcaps/external, pcaps/demo-vxlan.pcap) and broken or unsupported
// ones into the seed lab: every record is either injected or listed as unparsed with its byte offset,
// every injected packet ends delivered or dropped with a reason, and the counts agree with tshark.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { replayCapture, type ReplayPoint, type ReplayReport } from "../../src/cluster/replay/index.js";
import { loadFiles } from "../../src/k8s/load.js";
import { openCapture } from "../../src/pcap/index.js";
import { DropReason } from "../../datapath/reasons.js";
import { external, hasTshark, labFiles, sll2, tcpPacket, tmp, tsharkFields, TCP_SYN, writePcap } from "./replay-support.js";

const NO_TSHARK = hasTshark ? false : "tshark is not installed (it is the oracle for the capture contents)";

function balanced(r: ReplayReport): void {
  const l = r.ledger;
  assert.equal(l.injected + l.generated, l.delivered + l.dropped + l.inFlight);
  assert.equal(l.inFlight, 0);
}

const count = (r: ReplayReport, reason: number): number => r.drops.find((g) => g.reason === reason)?.count ?? 0;
const injectedDrops = (r: ReplayReport): number => r.drops.reduce((n, g) => n + g.injected, 0);

describe("replaying real and broken captures", () => {
  let rt: ClusterRuntime;
  let node: ReplayPoint;
  let pod: ReplayPoint;
  before(async () => {
    const built = buildCluster(await loadFiles(labFiles(), { namespace: "web" }));
    if (!built.ok) assert.fail(formatClusterError(built.error));
    rt = built.value;
    node = { label: "node/worker31.cyh.cloud", device: rt.node("worker31.cyh.cloud")!.eth0, direction: "receive" };
    pod = { label: "web/test", device: rt.pod("web/test")!.iface, direction: "transmit" };
  });

  async function run(file: string, point: ReplayPoint, rewriteL2 = false): Promise<ReplayReport> {
    const reader = openCapture(file, { lenient: true });
    return replayCapture(rt, reader, reader.summary, { point, timing: "fast", rewriteL2 });
  }

  it("demo-vxlan.pcap at a node: frames for other MACs are NOT_FOR_HOST, broadcasts reach the stack", { skip: NO_TSHARK }, async () => {
    const file = resolve(process.cwd(), "pcaps/demo-vxlan.pcap");
    const r = await run(file, node);
    balanced(r);
    assert.equal(r.ledger.injected, tsharkFields(file, ["frame.number"]).length);
    const unicast = tsharkFields(file, ["frame.number"], "eth.dst != ff:ff:ff:ff:ff:ff").length;
    assert.equal(count(r, DropReason.NOT_FOR_HOST), unicast);
    assert.equal(injectedDrops(r), unicast, "the broadcast ARP requests were consumed, not dropped");
  });

  it("demo-vxlan.pcap with --rewrite-l2: IPv4 not addressed to the cluster leaves through the gateway's uplink, as to the internet", { skip: NO_TSHARK }, async () => {
    const file = resolve(process.cwd(), "pcaps/demo-vxlan.pcap");
    const before = rt.underlay.uplink.live.emitted;
    const r = await run(file, node, true);
    balanced(r);
    const ipv4 = tsharkFields(file, ["frame.number"], "ip").length;
    assert.ok(ipv4 > 0);
    assert.equal(rt.underlay.uplink.live.emitted - before, ipv4);
    assert.equal(injectedDrops(r), 0, "routed on, not dropped");
  });

  it("a pcapng with two interfaces: the records with bad IPv4 header checksums (tshark) are BAD_CHECKSUM", { skip: NO_TSHARK }, async () => {
    const file = external("zeek-pcapng-multi-interface.pcapng");
    const before = rt.underlay.uplink.live.emitted;
    const r = await run(file, pod, true);
    balanced(r);
    assert.equal(r.capture.format, "pcapng");
    const bad = tsharkFields(file, ["frame.number", "ip.checksum.status"], undefined, ["ip.check_checksum:TRUE"]).filter((f) => f[1] === "0").map((f) => Number(f[0]));
    assert.ok(bad.length > 0);
    const group = r.drops.find((g) => g.reason === DropReason.BAD_CHECKSUM)!;
    assert.equal(group.injected, bad.length);
    assert.deepEqual(group.traces.map((t) => t.origin?.index), bad.slice(0, 3));
    // Every other record carries a source that is not the pod's (10.0.0.4, 172.17.0.2, 1.1.1.1): felix's
    // strict rpfilter in raw cali-PREROUTING drops them as the workload spoofing addresses they are.
    assert.equal(rt.underlay.uplink.live.emitted - before, 0, "nothing spoofed leaves the node");
    assert.equal(injectedDrops(r), r.ledger.injected);
    const spoofed = r.drops.find((g) => g.reason === DropReason.NETFILTER_DROP);
    assert.ok(spoofed !== undefined);
    assert.equal(spoofed.injected, r.ledger.injected - bad.length);
    for (const t of spoofed.traces) {
      assert.match(t.record.site, /raw\/cali-PREROUTING/);
      assert.match(t.record.explanation ?? "", /rpfilter: the route back to [0-9.]+ does not leave by cali/);
    }
  });

  it("a record cut by the snaplen is refused as INVALID_PACKET, naming the truncation", async () => {
    const r = await run(external("rustpcap-packet_snaplen_20.pcap"), pod);
    balanced(r);
    const t = r.drops.find((g) => g.reason === DropReason.INVALID_PACKET)!.traces[0]!;
    assert.deepEqual(t.origin, { index: 1, offset: 24 });
    assert.match(t.record.explanation ?? "", /truncated by the capture/);
  });

  it("a file cut in its last record: the others are replayed, the cut one is listed with its offset", { skip: NO_TSHARK }, async () => {
    const src = external("tcpdump-vxlan.pcap");
    const whole = readFileSync(src);
    const cut = join(tmp(), "cut.pcap");
    writeFileSync(cut, whole.subarray(0, whole.length - 10));
    const caplens = tsharkFields(src, ["frame.cap_len"]).map((f) => Number(f[0]));
    const lastOffset = 24 + caplens.slice(0, -1).reduce((n, c) => n + 16 + c, 0);
    const r = await run(cut, node);
    balanced(r);
    assert.equal(r.ledger.injected, caplens.length - 1);
    assert.equal(r.capture.unparsedCount, 1);
    assert.equal(r.capture.unparsed[0]!.offset, lastOffset);
  });

  it("unsupported link types and SLL frames that are not EtherType-framed are listed, not injected", async () => {
    const dir = tmp();
    const ip = tcpPacket(0x0ae0bbc1, 0x0ae0bbc2, 42000, 80, TCP_SYN);
    const nullLink = await writePcap(join(dir, "null.pcap"), 0, [new Uint8Array([2, 0, 0, 0, ...ip])]);
    const r1 = await run(nullLink, pod);
    assert.equal(r1.ledger.injected, 0);
    assert.deepEqual(r1.capture.unparsed, [{ index: 1, offset: 24, reason: "link type 0 is not supported for replay (Ethernet, raw IP, SLL and SLL2 are)" }]);
    const llc = sll2(ip);
    llc[0] = 0;
    llc[1] = 4; // ETH_P_802_2
    const r2 = await run(await writePcap(join(dir, "llc.pcap"), 276, [llc, sll2(ip)]), pod);
    balanced(r2);
    assert.equal(r2.ledger.injected, 1);
    assert.equal(r2.capture.unparsed.length, 1);
    assert.match(r2.capture.unparsed[0]!.reason, /SLL2 protocol 0x0004 is not an EtherType/);
    assert.equal(r2.capture.unparsed[0]!.offset, 24);
  });
});
