// GSO super-packets end to end: TCP hands the pod's eth0 one skb of up to 64 KB (what tcpdump shows
// on a TSO sender), the datapath carries it as one skb through VXLAN or IPIP encapsulation, and the
// wire between the nodes carries its MTU-sized segments, each with valid IPv4/TCP(/UDP) checksums
// (tshark is the oracle), arriving GRO-merged. Also: devices without GSO segment in software, the link
// serializes every segment with its own headers, and loss hits single segments.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCluster } from "../../../src/cluster/build.js";
import { formatClusterError } from "../../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../../src/cluster/runtime.js";
import { gsoSegment } from "../../../src/skb/gso.js";
import { GsoType, SkBuff } from "../../../src/skb/skbuff.js";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import type { NetWorld } from "../../../src/net/world.js";
import { write16, write32 } from "../../../src/wire/bytes.js";
import { setIpv4HeaderChecksum } from "../../../src/wire/checksum.js";
import { loadShape } from "../../cluster/support/clusters.js";
import type { NetNamespace } from "../../../src/net/stack/index.js";
import { Capture, WireCapture, assertConserved, ip, linked, routed } from "../tcp/topology.js";
import { classicPcapBytes } from "../../support/classic-pcap.js";

const tshark = spawnSync("tshark", ["--version"], { stdio: "ignore" }).status === 0;
const SKIP = tshark ? false : "tshark is not installed: no oracle for the segment checksums";

interface Row {
  ipSums: string;
  tcpSum: string;
  udpSum: string;
  len: number;
  tcpLen: number;
}

/** tshark's verdicts on every frame's checksums (status 1 = good, 0 = bad, 2 = not checked/absent). */
function tsharkCheck(frames: readonly Uint8Array[]): Row[] {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-gso-"));
  const file = join(dir, "wire.pcap");
  writeFileSync(file, classicPcapBytes(frames));
  const r = spawnSync("tshark", [
    "-r", file, "-n", "-d", "udp.port==8472,vxlan",
    "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
    "-T", "fields", "-E", "separator=|", "-e", "ip.checksum.status", "-e", "tcp.checksum.status", "-e", "udp.checksum.status", "-e", "frame.len", "-e", "tcp.len",
  ], { encoding: "utf8" });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split("\n").map((line) => {
    const [ipSums = "", tcpSum = "", udpSum = "", len = "0", tcpLen = "0"] = line.split("|");
    return { ipSums, tcpSum, udpSum, len: Number(len), tcpLen: Number(tcpLen) };
  });
}

function build(plugin: string, mode: string): ClusterRuntime {
  const r = buildCluster(loadShape({ plugin, mode }));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

/** Sends n bytes from pod a (n1) to pod c (n2) and runs until the receiver has them. */
function podTransfer(rt: ClusterRuntime, n: number): { got: number } {
  const a = rt.pod("default/a")!;
  const c = rt.pod("default/c")!;
  const state = { got: 0 };
  assert.ok(TcpStack.of(c.ns).listen(5301, (s) => (s.events = { onData: (_x, d) => void (state.got += d.length) })).ok);
  const data = new Uint8Array(n).map((_, i) => (i * 7) & 0xff);
  let off = 0;
  const pump = (s: TcpSocket): void => {
    while (off < n) {
      const k = s.send(data, off, n - off);
      if (k === 0) return;
      off += k;
    }
  };
  assert.ok(TcpStack.of(a.ns).connect(c.ip, 5301, { onConnect: pump, onWritable: pump }).ok);
  rt.sim.runUntil(rt.sim.now + 200e6);
  return state;
}

describe("GSO across the cluster datapath", () => {
  for (const [plugin, mode, outer] of [["flannel", "vxlan", 50], ["calico", "ipip", 20], ["calico", "none", 0]] as const) {
    it(`${plugin}-${mode}: super-packets on the pod's eth0, MTU-sized segments with good checksums on the wire`, { skip: SKIP }, () => {
      const rt = build(plugin, mode);
      const a = rt.pod("default/a")!;
      const podTap = Capture.on(a.iface);
      const wire = WireCapture.on(rt.underlay.nodes.get("n1")!.link);
      const n = 400_000;
      const r = podTransfer(rt, n);
      assert.equal(r.got, n);
      const sizes = podTap.tcp().map((f) => f.bytes.length);
      assert.ok(Math.max(...sizes) > 1514 * 4, `largest frame on the pod's eth0: ${Math.max(...sizes)} bytes (a TSO super-packet)`);
      const frames = wire.frames.filter((f) => f.from === "eth0").map((f) => f.bytes);
      const rows = tsharkCheck(frames).filter((row) => row.tcpSum !== "");
      assert.ok(rows.length > n / 1500, `${rows.length} TCP segments on the wire`);
      for (const row of rows) {
        assert.ok(row.len <= 1514, `frame of ${row.len} bytes on a 1500-byte underlay`);
        assert.equal(row.tcpSum, "1", "tcp checksum good");
        for (const s of row.ipSums.split(",")) assert.equal(s, "1", "every IPv4 header checksum good");
        assert.notEqual(row.udpSum, "0", "outer UDP checksum not bad");
      }
      const payload = rows.reduce((sum, row) => sum + row.tcpLen, 0);
      assert.ok(payload >= n, `${payload} payload bytes on the wire for ${n} sent`);
      const full = rows.filter((row) => row.len === 1514).length;
      assert.ok(full > rows.length / 2, `${full} full-size frames (pod MSS + ${outer} bytes of encapsulation fill the underlay MTU)`);
      const n2 = rt.underlay.nodes.get("n2")!.eth0.stats;
      assert.ok(n2.rxGroPackets > 0 && n2.rxGroSegments > 2 * n2.rxGroPackets, `n2 eth0 GRO: ${n2.rxGroPackets} packets, ${n2.rxGroSegments} segments`);
    });
  }
});

describe("GSO on a link", () => {
  it("a device without GSO (here a router's egress) segments in software: its taps see only MTU-sized frames", () => {
    const t = routed({ bandwidthBps: 10e9, latencyNs: 20_000 }, { bandwidthBps: 10e9, latencyNs: 20_000 });
    t.r2.features.gso = false;
    const into = Capture.on(t.r1, true);
    const out = Capture.on(t.r2);
    const r = bulk({ world: t.world, a: t.c, b: t.s, dst: ip("10.2.0.2") }, 300_000);
    assert.equal(r.got, 300_000);
    assert.ok(Math.max(...into.tcp().map((f) => f.bytes.length)) > 1514, "GRO-merged super-packets arrive at the router");
    assert.ok(t.r2.stats.txGsoSegmented > 0);
    assert.ok(Math.max(...out.tcp().map((f) => f.bytes.length)) <= 1514);
    assert.equal(t.es.stats.rxGroPackets, 0);
    assertConserved(t.world);
  });

  it("serialization: a super-packet occupies the wire exactly as long as its segments sent one by one", () => {
    const arrival = (gso: boolean): number[] => {
      const t = linked({ bandwidthBps: 1e9, latencyNs: 10_000 });
      TcpStack.of(t.a).sysctl.segmentationOffload = gso;
      const wire = WireCapture.on(t.link);
      bulk(t, 200_000);
      return wire.frames.filter((f) => f.from === "eth0" && f.bytes.length === 1514).map((f) => f.time);
    };
    const on = arrival(true);
    const off = arrival(false);
    // Back-to-back full frames are 1538 wire bytes (with preamble, FCS, gap) = 12304 ns apart at 1 Gbit/s.
    const gaps = on.slice(1).map((t, i) => t - on[i]!).filter((g) => g < 20_000);
    assert.ok(gaps.length > 50);
    for (const g of gaps) assert.equal(g, 12_304);
    assert.equal(on.length, off.length, "the same number of full-size frames either way");
  });

  it("loss hits single segments: the receiver gets exactly the others, and TCP repairs the holes", () => {
    const t = linked({ bandwidthBps: 10e9, latencyNs: 20_000, lossRate: 0.01 }, 3);
    const r = bulk(t, 2_000_000);
    assert.equal(r.got, 2_000_000);
    assert.equal(r.hash, expectedHash(2_000_000));
    const lost = t.link.stats(t.ea).lost;
    assert.ok(lost > 5, `${lost} segments lost`);
    assertConserved(t.world);
  });
});

describe("segmentation (skb_gso_segment)", () => {
  it("fixes lengths, IDs, sequence numbers and flags per segment; FIN/PSH only on the last", { skip: SKIP }, () => {
    const payload = 3 * 1000 + 500;
    const skb = superPacket(payload, 1000);
    const segs = gsoSegment(skb, skb.head + 14, () => 0);
    assert.ok(segs !== null);
    assert.equal(segs.length, 4);
    const frames = segs.map((s) => s.bytes());
    assert.deepEqual(frames.map((f) => f.length), [14 + 40 + 1000, 14 + 40 + 1000, 14 + 40 + 1000, 14 + 40 + 500]);
    assert.deepEqual(frames.map((f) => (f[18]! << 8) | f[19]!), [0x1234, 0x1235, 0x1236, 0x1237], "IP IDs count up");
    assert.deepEqual(frames.map((f) => new DataView(f.buffer, f.byteOffset).getUint32(38)), [5000, 6000, 7000, 8000]);
    assert.deepEqual(frames.map((f) => f[47]), [0x10, 0x10, 0x10, 0x19], "ACK on all, FIN+PSH on the last");
    for (const row of tsharkCheck(frames)) {
      assert.equal(row.tcpSum, "1");
      assert.equal(row.ipSums, "1");
    }
  });
});

/** Ethernet + IPv4 + TCP (ACK|PSH|FIN) super-packet with `payload` bytes in segments of gsoSize. */
function superPacket(payload: number, gsoSize: number): SkBuff {
  const len = 14 + 20 + 20 + payload;
  const b = new Uint8Array(len);
  b.set([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0]);
  b[14] = 0x45;
  write16(b, 16, 40 + payload);
  write16(b, 18, 0x1234);
  write16(b, 20, 0x4000);
  b[22] = 64;
  b[23] = 6;
  write32(b, 26, ip("10.0.0.1"));
  write32(b, 30, ip("10.0.0.2"));
  setIpv4HeaderChecksum(b, 14, 20);
  write16(b, 34, 40000);
  write16(b, 36, 80);
  write32(b, 38, 5000);
  write32(b, 42, 1);
  b[46] = 0x50;
  b[47] = 0x19;
  write16(b, 48, 500);
  for (let i = 0; i < payload; i++) b[54 + i] = i & 0xff;
  const skb = SkBuff.fromBytes(1, b);
  skb.gsoSize = gsoSize;
  skb.gsoSegs = Math.ceil(payload / gsoSize);
  skb.gsoType = GsoType.TCPV4;
  return skb;
}

function expectedHash(n: number): number {
  let h = 0;
  for (let i = 0; i < n; i++) h = (Math.imul(h, 31) + ((i * 7) & 0xff)) | 0;
  return h;
}

/** n bytes from A to B over the linked topology; returns what arrived and a rolling hash of it. */
function bulk(t: { world: NetWorld; a: NetNamespace; b: NetNamespace; dst?: number }, n: number): { got: number; hash: number } {
  const state = { got: 0, hash: 0 };
  assert.ok(TcpStack.of(t.b).listen(5201, (s) => (s.events = {
    onData: (_x, d) => {
      for (const byte of d) state.hash = (Math.imul(state.hash, 31) + byte) | 0;
      state.got += d.length;
    },
    onEnd: (x) => x.close(),
  })).ok);
  const data = new Uint8Array(n).map((_, i) => (i * 7) & 0xff);
  let off = 0;
  const pump = (s: TcpSocket): void => {
    while (off < n) {
      const k = s.send(data, off, n - off);
      if (k === 0) return;
      off += k;
    }
    s.end();
  };
  assert.ok(TcpStack.of(t.a).connect(t.dst ?? ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }).ok);
  t.world.sim.run();
  return state;
}
