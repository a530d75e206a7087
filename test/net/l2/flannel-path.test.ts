// End to end through every piece of this area the way flannel's VXLAN backend wires a cluster:
// pod -> veth -> cni0 (bridge) -> node routing -> flannel.1 (VXLAN 1, port 8472, nolearning, static
// ARP + FDB entries per remote node) -> eth0 -> a plain switch -> the other node, and back.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { BridgeDevice } from "../../../src/net/bridge.js";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { DEFAULT_LINK, Link } from "../../../src/net/link.js";
import { VethDevice } from "../../../src/net/veth.js";
import { VxlanDevice } from "../../../src/net/vxlan.js";
import type { NetWorld } from "../../../src/net/world.js";
import { NetNamespace } from "../../../src/net/stack/namespace.js";
import { read16, read32 } from "../../../src/wire/bytes.js";
import { readMac } from "../../../src/util/mac.js";
import { assertConserved, Capture, echoPacket, ip, makeWorld, mac, packet, udpPacket } from "./helpers.js";

interface FlannelNode {
  readonly node: NetNamespace;
  readonly eth0: EthernetDevice;
  readonly flannel: VxlanDevice;
  readonly pod: NetNamespace;
  readonly podAddr: number;
}

const nodeIp = (n: number): number => ip(`192.168.1.${10 + n}`);
const subnet = (n: number): number => ip(`10.244.${n}.0`);
const vtepMac = (n: number): number => mac(0xf00 + n);

function buildCluster(world: NetWorld, count: number): { nodes: FlannelNode[]; underlay: BridgeDevice; wire: Capture } {
  const underlay = new BridgeDevice(world, "underlay", mac(0xfff), { macSet: true });
  const nodes: FlannelNode[] = [];
  for (let n = 1; n <= count; n++) {
    const node = new NetNamespace(world, `node${n}`, `node${n}`);
    node.sysctl.ipForward = true;
    const eth0 = new EthernetDevice(world, "eth0", mac(0xa00 + n), 1500);
    const swPort = new EthernetDevice(world, `sw-p${n}`, mac(0xc00 + n), 1500);
    const link = new Link(world, eth0, swPort, { ...DEFAULT_LINK, latencyNs: 20_000 });
    eth0.link = link;
    swPort.link = link;
    underlay.addPort(swPort);
    node.addDevice(eth0);
    node.addAddress(eth0, nodeIp(n), 24);
    const cni0 = new BridgeDevice(world, "cni0", mac(0xb00 + n), { macSet: true });
    node.addDevice(cni0);
    node.addAddress(cni0, subnet(n) + 1, 24);
    const pod = new NetNamespace(world, `pod-${n}`, `node${n}`);
    const [podEth, hostEnd] = VethDevice.pair(world, "eth0", mac(0xd00 + n), `veth${n}`, mac(0xe00 + n));
    pod.addDevice(podEth);
    pod.addAddress(podEth, subnet(n) + 2, 24);
    pod.routes.add({ dst: 0, prefixLen: 0, via: subnet(n) + 1, dev: podEth });
    node.addDevice(hostEnd);
    cni0.addPort(hostEnd);
    const flannel = new VxlanDevice(world, "flannel.1", vtepMac(n), { vni: 1, dstPort: 8472, learning: false, local: nodeIp(n) });
    node.addDevice(flannel);
    node.addAddress(flannel, subnet(n), 32);
    const opened = flannel.open();
    if (!opened.ok) throw new Error(opened.error.reason);
    nodes.push({ node, eth0, flannel, pod, podAddr: subnet(n) + 2 });
  }
  // What flanneld programs for every remote node: route, ARP entry, FDB entry.
  for (const a of nodes) {
    nodes.forEach((b, i) => {
      if (a === b) return;
      const m = i + 1;
      a.node.routes.add({ dst: subnet(m), prefixLen: 24, via: subnet(m), dev: a.flannel, onlink: true });
      a.node.neigh.addStatic(a.flannel, subnet(m), vtepMac(m));
      a.flannel.setRemote(vtepMac(m), nodeIp(m));
    });
  }
  return { nodes, underlay, wire: new Capture(...nodes.map((x) => x.eth0)) };
}

test("pod to pod across nodes over flannel's VXLAN: encapsulated on the wire, routed twice, no NAT", () => {
  const { sim, world } = makeWorld();
  const { nodes, wire } = buildCluster(world, 3);
  const [n1, n2] = nodes as [FlannelNode, FlannelNode];
  const got: string[] = [];
  n2.pod.bindUdp(9000, (skb, info) => got.push(`${info.src}:${info.srcPort} ttl=${skb.data[info.ipOffset + 8]}`));
  n1.pod.outputIp(packet(world, udpPacket(n1.podAddr, n2.podAddr, 40000, 9000)));
  sim.run();
  assert.deepEqual(got, [`${n1.podAddr}:40000 ttl=62`]);
  const out = wire.frames.find((f) => f.dev === "eth0" && f.dir === "tx" && read16(f.bytes, 12) === 0x0800)!.bytes;
  assert.equal(read32(out, 26), nodeIp(1));
  assert.equal(read32(out, 30), nodeIp(2));
  assert.equal(read16(out, 36), 8472);
  assert.equal(read32(out, 46) >>> 8, 1, "VNI 1");
  assert.equal(readMac(out, 50), vtepMac(2), "inner destination: the remote flannel.1");
  assert.equal(readMac(out, 56), vtepMac(1), "inner source: the local flannel.1");
  assert.equal(read32(out, 50 + 14 + 12), n1.podAddr);
  assertConserved(world);
});

test("ping across nodes gets its reply, and node 3 never sees the overlay traffic", () => {
  const { sim, world } = makeWorld();
  const { nodes, wire } = buildCluster(world, 3);
  const [n1, n2] = nodes as [FlannelNode, FlannelNode];
  const replies: number[] = [];
  n1.pod.listenIcmp((skb, info) => replies.push(skb.data[skb.head]!, info.src));
  for (let seq = 1; seq <= 3; seq++) n1.pod.outputIp(packet(world, echoPacket(n1.podAddr, n2.podAddr, 9, seq)));
  sim.runUntil(2_000_000_000);
  assert.deepEqual(replies, [0, n2.podAddr, 0, n2.podAddr, 0, n2.podAddr]);
  assert.ok(wire.frames.some((f) => f.dir === "tx" && read16(f.bytes, 36) === 8472));
  assert.equal(nodes[2]!.eth0.stats.rxPackets, 1, "only node 1's ARP broadcast for node 2 reached node 3");
  sim.run();
  assertConserved(world);
});

test("an oversize DF packet from a pod gets frag-needed with flannel.1's MTU (1450) from its node", () => {
  const { sim, world, drops } = makeWorld();
  const { nodes } = buildCluster(world, 2);
  const [n1, n2] = nodes as [FlannelNode, FlannelNode];
  const errors: number[] = [];
  n1.pod.listenIcmp((skb, info) => errors.push(skb.data[skb.head]!, skb.data[skb.head + 1]!, read16(skb.data, skb.head + 6), info.src));
  n1.pod.outputIp(packet(world, udpPacket(n1.podAddr, n2.podAddr, 40000, 9000, 1500 - 28, { df: true })));
  sim.run();
  assert.deepEqual(errors, [3, 4, 1450, subnet(1) + 1]);
  assert.deepEqual(drops.dropRecords.map((d) => [d.reason, d.node]), [[DropReason.FRAG_NEEDED, "node1"]]);
  assertConserved(world);
});
