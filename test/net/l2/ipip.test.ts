// IPIP (tunl0) against the real capture zeek 4in4.pcap (outer 1.2.3.4 -> 5.6.7.8, inner UDP
// 10.0.0.1:30000 -> 10.0.0.2:13000) and ip_tunnel.c's rules: remote from the route's next hop,
// TTL inherited, DF copied (tunl0 is nopmtudisc), frag-needed with the underlay MTU minus 20,
// decapsulation onto tunl0, and ICMP port unreachable when no tunnel device is up.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { IpipDevice } from "../../../src/net/ipip.js";
import { DEFAULT_LINK, Link } from "../../../src/net/link.js";
import type { NetWorld } from "../../../src/net/world.js";
import { NetNamespace } from "../../../src/net/stack/namespace.js";
import { read16, read32, write16 } from "../../../src/wire/bytes.js";
import { setIpv4HeaderChecksum } from "../../../src/wire/checksum.js";
import { parseMac } from "../../../src/util/mac.js";
import { assertConserved, Capture, echoPacket, hex, ip, makeWorld, packet, readPcap, sharedPath, SinkStack, udpPacket } from "./helpers.js";

const CAPTURE = sharedPath("pcaps/external/zeek-tunnels-4in4.pcap");
const HOST_A_MAC = parseMac("c8:bc:c8:96:d2:a0")!;
const HOST_B_MAC = parseMac("00:10:db:88:d2:ef")!;
const A = ip("1.2.3.4");
const B = ip("5.6.7.8");

interface IpipHost {
  readonly ns: NetNamespace;
  readonly eth0: EthernetDevice;
  readonly tunl0: IpipDevice;
  readonly cap: Capture;
}

/** A host with eth0 (on a link to a sink) reaching `peer` on-link, and tunl0 opened. */
function host(world: NetWorld, self: number, selfMac: number, peer: number, peerMac: number, mtu = 1500): IpipHost {
  const ns = new NetNamespace(world, "h", "node1");
  const eth0 = new EthernetDevice(world, "eth0", selfMac, mtu);
  const wire = new EthernetDevice(world, "wire", peerMac, 1500);
  wire.stack = new SinkStack(world);
  const link = new Link(world, eth0, wire, { ...DEFAULT_LINK, latencyNs: 1000 });
  eth0.link = link;
  wire.link = link;
  ns.addDevice(eth0);
  ns.addAddress(eth0, self, 32);
  ns.routes.add({ dst: peer, prefixLen: 32, dev: eth0 });
  ns.neigh.addStatic(eth0, peer, peerMac);
  const tunl0 = new IpipDevice(world);
  ns.addDevice(tunl0);
  const opened = tunl0.open();
  if (!opened.ok) throw new Error(opened.error.reason);
  return { ns, eth0, tunl0, cap: new Capture(eth0, tunl0) };
}

test("tunl0 encapsulation matches the captured 4in4 frame apart from the outer ID", async () => {
  const [real] = (await readPcap(CAPTURE)) as [Uint8Array];
  const { sim, world } = makeWorld();
  const h = host(world, A, HOST_A_MAC, B, HOST_B_MAC);
  assert.equal(h.tunl0.mtu, 1480);
  h.ns.routes.add({ dst: ip("10.0.0.0"), prefixLen: 24, via: B, dev: h.tunl0, onlink: true });
  h.ns.outputIp(packet(world, real.subarray(34)));
  sim.run();
  const ours = h.cap.on("eth0", "tx")[0]!.slice();
  assert.equal(read16(ours, 20), 0, "DF copied from the inner header (clear)");
  assert.equal(ours[22], 64, "TTL inherited from the inner packet");
  // The outer IP ID comes from the namespace's per-destination generator (random in Linux).
  write16(ours, 18, read16(real, 18));
  setIpv4HeaderChecksum(ours, 14, 20);
  assert.equal(hex(ours), hex(real));
  assertConserved(world);
});

test("outer TTL and DF follow the inner packet; the remote is the route's next hop", () => {
  const { sim, world } = makeWorld();
  const h = host(world, A, HOST_A_MAC, B, HOST_B_MAC);
  h.ns.routes.add({ dst: ip("10.0.1.0"), prefixLen: 24, via: B, dev: h.tunl0, onlink: true });
  h.ns.addAddress(h.tunl0, ip("10.0.0.1"), 32);
  h.ns.outputIp(packet(world, udpPacket(ip("10.0.0.1"), ip("10.0.1.9"), 1000, 2000, 10, { df: true, ttl: 17 })));
  sim.run();
  const f = h.cap.on("eth0", "tx")[0]!;
  assert.equal(read16(f, 20), 0x4000);
  assert.equal(f[22], 17);
  assert.equal(f[23], 4);
  assert.equal(read32(f, 26), A, "outer source: the address on the route to the remote");
  assert.equal(read32(f, 30), B);
  assertConserved(world);
});

test("decapsulates the captured packet onto tunl0 and delivers the inner datagram", async () => {
  const [real] = (await readPcap(CAPTURE)) as [Uint8Array];
  const { sim, world } = makeWorld();
  const h = host(world, B, HOST_B_MAC, A, HOST_A_MAC);
  h.ns.addAddress(h.tunl0, ip("10.0.0.2"), 32);
  const got: string[] = [];
  h.ns.bindUdp(13000, (_skb, info) => got.push(`${info.src}:${info.srcPort} via ${info.dev.name}`));
  h.eth0.receive(packet(world, real));
  sim.run();
  assert.deepEqual(h.cap.on("tunl0", "rx").map(hex), [hex(real.subarray(34))]);
  assert.deepEqual(got, [`${ip("10.0.0.1")}:30000 via tunl0`]);
  assertConserved(world);
});

test("frag-needed when the inner DF packet does not fit the underlay MTU minus 20", () => {
  const { sim, world, drops } = makeWorld();
  const h = host(world, A, HOST_A_MAC, B, HOST_B_MAC, 1400);
  h.ns.addAddress(h.tunl0, ip("10.0.0.1"), 32);
  h.ns.routes.add({ dst: ip("10.0.1.0"), prefixLen: 24, via: B, dev: h.tunl0, onlink: true });
  const errors: number[] = [];
  h.ns.listenIcmp((skb, info) => {
    const at = skb.head;
    errors.push(skb.data[at]!, skb.data[at + 1]!, read16(skb.data, at + 6), info.src);
  });
  h.ns.outputIp(packet(world, echoPacket(ip("10.0.0.1"), ip("10.0.1.9"), 1, 1, 1480 - 28)));
  sim.run();
  assert.deepEqual(errors, [3, 4, 1380, ip("10.0.0.1")]);
  assert.equal(drops.dropRecords[0]?.reason, DropReason.FRAG_NEEDED);
  assert.equal(h.cap.on("eth0", "tx").length, 0);
  assertConserved(world);
});

test("with tunl0 down an IPIP packet gets ICMP port unreachable (tunnel4_rcv) and is dropped", async () => {
  const [real] = (await readPcap(CAPTURE)) as [Uint8Array];
  const { sim, world, drops } = makeWorld();
  const h = host(world, B, HOST_B_MAC, A, HOST_A_MAC);
  h.tunl0.up = false;
  h.eth0.receive(packet(world, real));
  sim.run();
  assert.equal(drops.dropRecords.at(-1)?.reason, DropReason.NO_TUNNEL_ENDPOINT);
  const icmp = h.cap.on("eth0", "tx")[0]!;
  assert.deepEqual([icmp[23], icmp[34], icmp[35], read32(icmp, 30)], [1, 3, 3, A]);
  assertConserved(world);
});
