// VXLAN encapsulation and decapsulation against a real capture (tcpdump's vxlan.pcap: VNI 100,
// UDP 4789, 192.168.203.1 <-> 192.168.202.1) and Linux's vxlan rules: outer UDP checksum 0,
// flags 0x08, VNI, lengths, TTL 64 from the route, DF per the df option, hashed source port in
// 32768..60998; VNI mismatch, reserved bits, learning, static entries, flood lists. Linux 6.18 on this
// machine (`ip link add vx0 type vxlan id 42 local .. remote .. dev ..`, `ip -d link`, tcpdump) showed
// the defaults checked here: dstport 8472, mtu 1450, ttl auto (64), DF clear, udpcsum on.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { ALL_ZEROS_MAC, srcPortFromHash, VxlanDevice, VxlanDf, VxlanNud } from "../../../src/net/vxlan.js";
import { read16, read32, write16 } from "../../../src/wire/bytes.js";
import { setIpv4HeaderChecksum, verifyIpv4HeaderChecksum, verifyL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { readMac } from "../../../src/util/mac.js";
import { assertConserved, hex, ip, makeWorld, mac, packet, readPcap, sharedPath, SinkStack, udpFrame } from "./helpers.js";
import { buildVtep, LOCAL_MAC, LOCAL_VTEP, REMOTE_MAC, REMOTE_VTEP } from "./vtep-fixture.js";

const CAPTURE = sharedPath("pcaps/external/tcpdump-vxlan.pcap");
const CAPTURE_8472 = sharedPath("pcaps/external/tcpdump-vxlan_port_8472.pcap");
const OUTER = 14 + 20 + 8 + 8;

test("encapsulation matches the captured frame byte for byte, apart from the outer ID and source port", async () => {
  const frames = await readPcap(CAPTURE);
  const real = frames[0]!;
  const { sim, world } = makeWorld();
  // The capture's sender set DF and sent no UDP checksum: Linux does that with `df set noudpcsum`
  // (its defaults are DF clear and udpcsum, see the next test).
  const { vx, cap } = buildVtep(world, { vni: 100, dstPort: 4789, remote: REMOTE_VTEP, learning: false, df: VxlanDf.SET, udpCsum: false });
  vx.transmit(packet(world, real.subarray(OUTER)));
  sim.run();
  const ours = cap.on("eth0", "tx")[0]!.slice();
  assert.equal(ours.length, real.length);
  // Fields that legitimately differ: the IP ID (Linux: __ip_select_ident, per-destination random
  // counters), the header checksum that follows from it, and the hashed UDP source port.
  assert.ok(verifyIpv4HeaderChecksum(ours, 14, 20));
  const sport = read16(ours, 34);
  assert.ok(sport >= 32768 && sport <= 60998, `source port ${sport} in the ephemeral range`);
  write16(ours, 18, read16(real, 18));
  setIpv4HeaderChecksum(ours, 14, 20);
  write16(ours, 34, read16(real, 34));
  assert.equal(hex(ours), hex(real));
  assertConserved(world);
});

test("Linux defaults: DF clear, TTL 64, UDP checksum computed, flags 0x08, VNI, lengths, 50 bytes overhead", () => {
  const { sim, world } = makeWorld();
  const { vx, cap } = buildVtep(world, { vni: 0xabcdef, remote: REMOTE_VTEP, learning: false });
  assert.equal(vx.dstPort, 8472, "Linux's default port when dstport is not given");
  assert.equal(vx.mtu, 1450);
  const inner = udpFrame({ dstMac: mac(2), srcMac: mac(1), src: ip("10.0.0.1"), dst: ip("10.0.0.2"), payload: 1450 - 28, df: true, tos: 0x03 });
  vx.transmit(packet(world, inner));
  sim.run();
  const f = cap.on("eth0", "tx")[0]!;
  assert.equal(f.length, inner.length + 50);
  assert.equal(readMac(f, 0), REMOTE_MAC);
  assert.equal(readMac(f, 6), LOCAL_MAC);
  assert.equal(read16(f, 12), 0x0800);
  assert.equal(f[14], 0x45);
  assert.equal(f[15], 0x02, "ECN copied from the inner CE as ECT(0), DSCP 0");
  assert.equal(read16(f, 16), inner.length + 36, "total length");
  assert.equal(read16(f, 20), 0, "no DF, no fragment offset");
  assert.equal(f[22], 64, "TTL from the route (ip_default_ttl)");
  assert.equal(f[23], 17);
  assert.equal(read32(f, 26), LOCAL_VTEP);
  assert.equal(read32(f, 30), REMOTE_VTEP);
  assert.equal(read16(f, 36), 8472);
  assert.equal(read16(f, 38), inner.length + 16, "UDP length");
  assert.notEqual(read16(f, 40), 0, "udpcsum (the default): checksum computed");
  assert.ok(verifyL4ChecksumV4(f, 34, read16(f, 38), 17, LOCAL_VTEP, REMOTE_VTEP));
  assert.equal(read32(f, 42), 0x08000000, "flags I, reserved 0");
  assert.equal(read32(f, 46), (0xabcdef << 8) >>> 0, "VNI, reserved 0");
  assert.equal(hex(f.subarray(50)), hex(inner));
  assertConserved(world);
});

test("noudpcsum and df inherit options", () => {
  const { sim, world } = makeWorld();
  const { vx, cap } = buildVtep(world, { vni: 5, dstPort: 4789, remote: REMOTE_VTEP, learning: false, udpCsum: false, df: VxlanDf.INHERIT });
  vx.transmit(packet(world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src: ip("10.0.0.1"), dst: ip("10.0.0.2"), df: true })));
  vx.transmit(packet(world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src: ip("10.0.0.1"), dst: ip("10.0.0.2"), df: false })));
  sim.run();
  const [a, b] = cap.on("eth0", "tx") as [Uint8Array, Uint8Array];
  assert.equal(read16(a, 20), 0x4000);
  assert.equal(read16(b, 20), 0);
  assert.equal(read16(a, 40), 0, "noudpcsum: checksum 0");
  assertConserved(world);
});

test("decapsulates the captured frames onto the device with the inner bytes unchanged", async () => {
  for (const [file, port] of [[CAPTURE, 4789], [CAPTURE_8472, 8472]] as const) {
    const frames = await readPcap(file);
    const { sim, world } = makeWorld();
    const { eth0, vx, cap } = buildVtep(world, { vni: 100, dstPort: port, learning: true });
    const sink = new SinkStack(world, "bridge");
    vx.master = sink;
    const toUs = frames.filter((f) => read32(f, 30) === LOCAL_VTEP);
    assert.equal(toUs.length, 5);
    for (const f of toUs) eth0.receive(packet(world, f));
    sim.run();
    assert.deepEqual(cap.on("vxlan0", "rx").map(hex), toUs.map((f) => hex(f.subarray(OUTER))));
    assert.equal(sink.got.length, 5);
    const learned = vx.fdb.entries(sim.now).map((e) => [e.mac, e.remotes[0]!.ip, e.state]);
    assert.deepEqual(learned, [[readMac(toUs[0]!, 50 + 6), REMOTE_VTEP, VxlanNud.REACHABLE]]);
    assertConserved(world);
  }
});

test("a VNI without a device is dropped with INVALID_VNI; reserved bits and a missing I flag are invalid", async () => {
  const frames = await readPcap(CAPTURE);
  const f = frames[1]!;
  const { sim, world, drops } = makeWorld();
  const { eth0 } = buildVtep(world, { vni: 42, dstPort: 4789 });
  eth0.receive(packet(world, f));
  const noI = f.slice();
  noI[42] = 0;
  eth0.receive(packet(world, noI));
  sim.run();
  assert.deepEqual(drops.dropRecords.map((d) => [d.reason, d.site]), [
    [DropReason.INVALID_VNI, "net/vxlan:vni"],
    [DropReason.INVALID_PACKET, "net/vxlan:flags"],
  ]);
  assert.equal(drops.dropRecords[0]!.after.src, REMOTE_VTEP, "the drop record names the outer flow");
  const second = makeWorld();
  const v2 = buildVtep(second.world, { vni: 100, dstPort: 4789 });
  const reserved = f.slice();
  reserved[49] = 1;
  v2.eth0.receive(packet(second.world, reserved));
  second.sim.run();
  assert.equal(second.drops.dropRecords[0]?.site, "net/vxlan:reserved");
  assertConserved(world);
  assertConserved(second.world);
});

test("learning: off learns nothing; static entries are not migrated (the frame is dropped); learned ones move", async () => {
  const frames = await readPcap(CAPTURE);
  const f = frames[1]!; // from 192.168.202.1, inner source 00:30:88:01:00:02
  const innerSrc = readMac(f, 50 + 6);
  const off = makeWorld();
  const a = buildVtep(off.world, { vni: 100, dstPort: 4789, learning: false });
  a.vx.master = new SinkStack(off.world);
  a.eth0.receive(packet(off.world, f));
  off.sim.run();
  assert.equal(a.vx.fdb.size, 0);
  assertConserved(off.world);

  const on = makeWorld();
  const b = buildVtep(on.world, { vni: 100, dstPort: 4789 });
  b.vx.master = new SinkStack(on.world);
  b.vx.setRemote(innerSrc, ip("192.168.202.99"));
  b.eth0.receive(packet(on.world, f));
  on.sim.run();
  assert.equal(on.drops.dropRecords[0]?.reason, DropReason.VXLAN_FDB_STATIC);
  b.vx.deleteRemote(innerSrc);
  b.eth0.receive(packet(on.world, f));
  on.sim.run();
  assert.equal(b.vx.fdb.find(innerSrc, on.sim.now)?.remotes[0]?.ip, REMOTE_VTEP, "learned");
  const moved = f.slice();
  moved.set([192, 168, 202, 7], 26);
  setIpv4HeaderChecksum(moved, 14, 20);
  b.eth0.receive(packet(on.world, moved));
  on.sim.run();
  assert.equal(b.vx.fdb.find(innerSrc, on.sim.now)?.remotes[0]?.ip, ip("192.168.202.7"), "migrated");
  assert.equal(b.vx.tunnelStats.migrated, 1);
  const age = b.vx.fdb.find(innerSrc, on.sim.now)!.updated + 300_000_000_000;
  on.sim.runUntil(age);
  assert.equal(b.vx.fdb.find(innerSrc, on.sim.now), undefined, "learned entries age out after 300 s");
  assertConserved(on.world);
});

test("the all-zeros flood list sends one copy per remote; no entry at all drops with NO_TUNNEL_ENDPOINT", () => {
  const { sim, world, drops } = makeWorld();
  const { ns, eth0, vx, cap } = buildVtep(world, { vni: 1, learning: false });
  vx.transmit(packet(world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src: ip("10.0.0.1"), dst: ip("10.0.0.2") })));
  sim.run();
  assert.equal(drops.dropRecords[0]?.reason, DropReason.NO_TUNNEL_ENDPOINT);
  const third = ip("192.168.202.3");
  ns.neigh.addStatic(eth0, third, mac(0x33));
  assert.ok(vx.appendFlood(REMOTE_VTEP).ok);
  assert.ok(vx.appendFlood(third).ok);
  assert.ok(vx.appendFlood(third).ok, "appending an existing remote is a no-op");
  assert.equal(vx.fdb.find(ALL_ZEROS_MAC, sim.now)?.remotes.length, 2);
  vx.transmit(packet(world, udpFrame({ dstMac: 0xffffffffffff, srcMac: mac(1), src: ip("10.0.0.1"), dst: ip("10.0.0.255") })));
  sim.run();
  assert.deepEqual(cap.on("eth0", "tx").map((f) => read32(f, 30)).sort(), [REMOTE_VTEP, third].sort());
  assert.equal(vx.addRemote(mac(5), third).ok, true);
  assert.equal(vx.addRemote(mac(5), REMOTE_VTEP).ok, false, "bridge fdb add on an existing MAC: File exists");
  assertConserved(world);
});

test("source ports: in 32768..60998, fixed per flow, equal for both directions, spread across flows", () => {
  assert.equal(srcPortFromHash(1), 32768);
  assert.equal(srcPortFromHash(0x0000ffff), 60998);
  const { sim, world } = makeWorld();
  const { vx, cap } = buildVtep(world, { vni: 1, remote: REMOTE_VTEP, learning: false, flowHashSeed: 1234 });
  const a = ip("10.0.0.1");
  const b = ip("10.0.0.2");
  for (let i = 0; i < 200; i++) vx.transmit(packet(world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src: a, dst: b, sport: 20000 + i, dport: 80 })));
  for (let i = 0; i < 3; i++) vx.transmit(packet(world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src: a, dst: b, sport: 20000, dport: 80 })));
  vx.transmit(packet(world, udpFrame({ dstMac: mac(1), srcMac: mac(2), src: b, dst: a, sport: 80, dport: 20000 })));
  sim.run();
  const ports = cap.on("eth0", "tx").map((f) => read16(f, 34));
  assert.ok(ports.every((p) => p >= 32768 && p <= 60998));
  assert.ok(new Set(ports.slice(0, 200)).size > 180, "different flows spread over the range");
  assert.deepEqual(ports.slice(200), [ports[0], ports[0], ports[0], ports[0]], "same flow and its reverse: same port");
  const other = makeWorld();
  const v2 = buildVtep(other.world, { vni: 1, remote: REMOTE_VTEP, learning: false, flowHashSeed: 1234 });
  v2.vx.transmit(packet(other.world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src: a, dst: b, sport: 20000, dport: 80 })));
  other.sim.run();
  assert.equal(read16(v2.cap.on("eth0", "tx")[0]!, 34), ports[0], "deterministic for a seed");
  assertConserved(world);
});

test("a bridged VXLAN port answers an oversize DF packet with ICMP frag-needed carrying the tunnel MTU", () => {
  const { sim, world, drops } = makeWorld();
  const { vx } = buildVtep(world, { vni: 1, remote: REMOTE_VTEP, learning: false, mtu: 1500 });
  const bridge = new SinkStack(world, "br0");
  vx.master = bridge;
  const src = ip("10.0.0.1");
  const dst = ip("10.0.0.2");
  vx.transmit(packet(world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src, dst, payload: 1500 - 28, df: true, ttl: 61 })));
  sim.run();
  assert.equal(drops.dropRecords[0]?.reason, DropReason.FRAG_NEEDED);
  const icmp = bridge.got[0]!.bytes;
  assert.equal(readMac(icmp, 0), mac(1), "back to the sender's MAC");
  assert.equal(readMac(icmp, 6), mac(2));
  assert.equal(read16(icmp, 16), 576, "quoted up to 576 bytes");
  assert.equal(read16(icmp, 18), 0, "ID 0");
  assert.equal(read16(icmp, 20), 0x4000, "DF");
  assert.equal(icmp[22], 61, "TTL of the original");
  assert.equal(read32(icmp, 26), dst);
  assert.equal(read32(icmp, 30), src);
  assert.deepEqual([icmp[34], icmp[35], read16(icmp, 40)], [3, 4, 1450]);
  assertConserved(world);
  const routed = makeWorld();
  const r = buildVtep(routed.world, { vni: 1, remote: REMOTE_VTEP, learning: false, mtu: 1500 });
  r.vx.transmit(packet(routed.world, udpFrame({ dstMac: mac(2), srcMac: mac(1), src, dst, payload: 1500 - 28, df: true })));
  routed.sim.run();
  // Routed (not a bridge port): encapsulated anyway; the outer DF is clear, so the underlay fragments it.
  assert.equal(r.cap.on("eth0", "tx").length, 2);
  assertConserved(routed.world);
});

test("a VXLAN device must be opened in a namespace, and VNIs are unique per port", () => {
  const { world } = makeWorld();
  const { ns } = buildVtep(world, { vni: 7, dstPort: 4789 });
  const dup = new VxlanDevice(world, "vxlan1", mac(0xef), { vni: 7, dstPort: 4789 });
  assert.equal(dup.open().ok, false);
  ns.addDevice(dup);
  const r = dup.open();
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error.reason, /VNI 7 already used/);
  const other = new VxlanDevice(world, "vxlan2", mac(0xf0), { vni: 8, dstPort: 4789 });
  ns.addDevice(other);
  assert.ok(other.open().ok, "another VNI shares the socket");
  assert.throws(() => new VxlanDevice(world, "bad", 1, { vni: 1 << 24 }), /vni/);
});
