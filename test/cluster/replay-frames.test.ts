// FramePreparer: how records of each link type become the bytes an injection point takes (a built
// Ethernet header for raw IP and SLL, VLAN tags and MACs replaced with rewriteL2, bare IP for L3 devices),
// and the 802.1Q capture from zeek replayed with --rewrite-l2: tshark sees the same IP packets untagged.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { FramePreparer } from "../../src/cluster/replay/frames.js";
import { buildCluster } from "../../src/cluster/build.js";
import { replayCapture } from "../../src/cluster/replay/index.js";
import { loadFiles } from "../../src/k8s/load.js";
import { openCapture, PcapWriter } from "../../src/pcap/index.js";
import { formatMac } from "../../src/util/mac.js";
import { ethernet, external, hasTshark, labFiles, tcpPacket, tmp, tsharkFields, TCP_SYN } from "./replay-support.js";

const SRC = 0x0200000000aa;
const DST = 0x0200000000bb;
const macs = (): { src: number; dst: number } => ({ src: SRC, dst: DST });
const ip = tcpPacket(0x0a000001, 0x0a000002, 1234, 80, TCP_SYN);

function sll(packet: Uint8Array, protocol: number): Uint8Array {
  const f = new Uint8Array(16 + packet.length);
  f[1] = 4; // outgoing
  f[3] = 1; // ARPHRD_ETHER
  f[5] = 6;
  f[14] = protocol >>> 8;
  f[15] = protocol & 0xff;
  f.set(packet, 16);
  return f;
}

function tagged(inner: Uint8Array, vids: readonly number[]): Uint8Array {
  const f = new Uint8Array(inner.length + 4 * vids.length);
  f.set(inner.subarray(0, 12), 0);
  vids.forEach((vid, i) => {
    const o = 12 + 4 * i;
    f[o] = i === 0 ? 0x88 : 0x81;
    f[o + 1] = i === 0 ? 0xa8 : 0x00;
    f[o + 2] = vid >>> 8;
    f[o + 3] = vid & 0xff;
  });
  f.set(inner.subarray(12), 12 + 4 * vids.length);
  return f;
}

describe("FramePreparer", () => {
  it("raw IP (101) gets an Ethernet header with the chosen MACs and EtherType 0x0800", () => {
    const r = new FramePreparer(true, macs).prepare(101, ip);
    assert.ok(r.ok);
    const f = r.value.bytes.subarray(0, r.value.length);
    assert.deepEqual([...f.subarray(0, 14)], [2, 0, 0, 0, 0, 0xbb, 2, 0, 0, 0, 0, 0xaa, 0x08, 0x00]);
    assert.deepEqual([...f.subarray(14)], [...ip]);
  });

  it("SLL (113) takes its protocol as the EtherType", () => {
    const r = new FramePreparer(true, macs).prepare(113, sll(ip, 0x0800));
    assert.ok(r.ok);
    assert.equal(r.value.etherType, 0x0800);
    assert.deepEqual([...r.value.bytes.subarray(14, r.value.length)], [...ip]);
  });

  it("Ethernet stays as captured, unless rewriteL2 replaces its header and VLAN tags", () => {
    const frame = tagged(ethernet(0x111111111111, 0x222222222222, ip), [10, 20]);
    const kept = new FramePreparer(true, macs).prepare(1, frame);
    assert.ok(kept.ok);
    assert.equal(kept.value.bytes, frame);
    assert.equal(kept.value.l3Offset, 22, "after two tags");
    const rewritten = new FramePreparer(true, macs, true).prepare(1, frame);
    assert.ok(rewritten.ok);
    assert.equal(rewritten.value.length, 14 + ip.length);
    assert.deepEqual([...rewritten.value.bytes.subarray(6, 14)], [2, 0, 0, 0, 0, 0xaa, 0x08, 0x00]);
  });

  it("an L3 device gets the bare IP packet; non-IP cannot enter it", () => {
    const p = new FramePreparer(false, macs);
    const r = p.prepare(1, tagged(ethernet(1, 2, ip), [7]));
    assert.ok(r.ok);
    assert.deepEqual([...r.value.bytes.subarray(0, r.value.length)], [...ip]);
    const arp = new Uint8Array(42);
    arp[12] = 0x08;
    arp[13] = 0x06;
    const bad = p.prepare(1, arp);
    assert.ok(!bad.ok);
    assert.match(bad.error, /0x0806 cannot enter an L3 device/);
  });

  it("runts and unknown IP versions are refused with the reason", () => {
    const p = new FramePreparer(true, macs);
    assert.deepEqual(p.prepare(1, new Uint8Array(10)), { ok: false, error: "10-byte frame is shorter than an Ethernet header" });
    assert.deepEqual(p.prepare(101, new Uint8Array([0x55, 0])), { ok: false, error: "raw IP packet with IP version 5" });
    assert.deepEqual(p.prepare(113, new Uint8Array(8)), { ok: false, error: "8-byte packet is shorter than the SLL header (16 bytes)" });
  });
});

describe("an 802.1Q capture replayed with --rewrite-l2", () => {
  it("arrives untagged at the node with the same IP packets, in order (tshark on both files)", { skip: hasTshark ? false : "tshark is the oracle" }, async () => {
    const built = buildCluster(await loadFiles(labFiles(), { namespace: "web" }));
    assert.ok(built.ok);
    const rt = built.value;
    const eth0 = rt.node("worker31.cyh.cloud")!.eth0;
    const file = external("zeek-icmp_dot1q.pcap");
    const dir = tmp();
    const reader = openCapture(file, { lenient: true });
    const report = await replayCapture(rt, reader, reader.summary, {
      point: { label: "node/worker31.cyh.cloud", device: eth0, direction: "receive" },
      timing: "fast",
      rewriteL2: true,
      record: (name, linkType) => PcapWriter.toFile(join(dir, `${name}.pcap`), { linkType }),
    });
    assert.equal(report.ledger.injected, tsharkFields(file, ["frame.number"]).length);
    const fields = ["ip.src", "ip.dst", "icmp.type", "icmp.seq"];
    const original = tsharkFields(file, fields, "ip");
    const recorded = join(dir, "worker31.cyh.cloud_eth0.pcap");
    assert.deepEqual(tsharkFields(recorded, fields, `ip && eth.dst == ${formatMac(eth0.mac)}`), original);
    assert.deepEqual(tsharkFields(recorded, ["frame.number"], "vlan"), [], "no 802.1Q tag left");
  });
});
