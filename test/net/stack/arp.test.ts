// ARP behaviour beyond the golden capture: Calico's proxy ARP for 169.254.1.1 on an address-less
// veth (immediately with proxy_delay 0, after a random delay below 0.8 s by default, never without
// ip_forward or proxy_arp), replies for any local address unless arp_ignore says otherwise, which
// ARP creates entries (requests to us) and which does not (unsolicited replies, requests for others),
// and the RFC 5227 probe answer.

import { test } from "node:test";
import assert from "node:assert/strict";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { unwrap } from "../../../src/util/result.js";
import { readMac, writeMac, BROADCAST_MAC } from "../../../src/util/mac.js";
import { read16, read32, write16, write32 } from "../../../src/wire/bytes.js";
import { addr, assertConserved, Capture, injectTx, ip, mac, newWorld, vethBetween } from "./topology.js";
import { echo, packetSkb } from "./packets.js";

const S = 1_000_000_000;
const POD_MAC = mac("ee:ee:ee:ee:ee:01");
const CALI_MAC = mac("ee:ee:ee:ee:ee:ee");

/** Calico's node: pod 10.244.1.5/32 behind cali1 (no address, proxy_arp), node address on eth0. */
function calicoNode(options: { proxyDelayZero?: boolean; forward?: boolean; proxyArp?: boolean; seed?: number } = {}) {
  const { world, sink } = newWorld(options.seed ?? 3);
  const host = new NetNamespace(world, "host", "node-1");
  const pod = new NetNamespace(world, "pod", "node-1");
  const [podEth, cali] = vethBetween(world, pod, "eth0", POD_MAC, host, "cali1", CALI_MAC);
  const eth0 = new EthernetDevice(world, "eth0", mac("02:00:00:00:01:0a"), 1500);
  unwrap(host.addDevice(eth0));
  addr(host, eth0, "192.168.1.10/24");
  unwrap(host.routes.add({ dst: 0, prefixLen: 0, via: ip("192.168.1.1") }));
  unwrap(host.routes.add({ dst: ip("10.244.1.5"), prefixLen: 32, dev: cali }));
  host.sysctl.ipForward = options.forward ?? true;
  if (options.proxyArp ?? true) host.sysctl.proxyArp.add(cali.ifindex);
  if (options.proxyDelayZero ?? true) host.neigh.parms(cali).proxyDelayNs = 0;
  addr(pod, podEth, "10.244.1.5/32");
  unwrap(pod.routes.add({ dst: ip("169.254.1.1"), prefixLen: 32, dev: podEth }));
  unwrap(pod.routes.add({ dst: 0, prefixLen: 0, via: ip("169.254.1.1"), dev: podEth }));
  const replies: number[] = [];
  pod.listenIcmp((skb) => replies.push(skb.data[skb.head]!));
  const cap = Capture.on(podEth);
  const ping = (): void => pod.outputIp(packetSkb(world, echo(0, ip("192.168.1.10"), 7, 1, new Uint8Array(8))));
  return { world, sink, host, pod, podEth, cali, cap, replies, ping };
}

test("Calico proxy ARP: the host answers for 169.254.1.1 with the veth's MAC and the pod reaches the node", () => {
  const t = calicoNode();
  t.ping();
  t.world.sim.run();
  const rx = t.cap.of("eth0", "rx");
  const reply = rx[0]!.bytes;
  assert.equal(read16(reply, 20), 2, "ARP reply");
  assert.equal(readMac(reply, 0), POD_MAC, "unicast to the asker");
  assert.equal(readMac(reply, 22), CALI_MAC, "sender MAC: cali1's own");
  assert.equal(read32(reply, 28), ip("169.254.1.1"));
  assert.equal(readMac(reply, 32), POD_MAC);
  assert.equal(read32(reply, 38), ip("10.244.1.5"));
  assert.equal(rx[0]!.time, 0, "proxy_delay 0: at once");
  assert.deepEqual(t.replies, [0], "echo reply from the node address");
  assert.equal(t.host.neigh.lookup(t.cali, ip("10.244.1.5"))?.mac, POD_MAC, "the pod was learned from its request");
  assertConserved(t.world);
});

test("proxy ARP with the default proxy_delay answers a broadcast request after a random wait below 0.8 s", () => {
  const delays = new Set<number>();
  for (let seed = 0; seed < 4; seed++) {
    const t = calicoNode({ proxyDelayZero: false, seed });
    t.ping();
    t.world.sim.run();
    const reply = t.cap.of("eth0", "rx").find((f) => read16(f.bytes, 12) === 0x0806)!;
    assert.ok(reply.time >= 0 && reply.time < 0.8 * S, `delay ${reply.time}`);
    assert.equal(reply.time % 4_000_000, 0, "whole jiffies");
    delays.add(reply.time);
    assert.deepEqual(t.replies, [0]);
    assertConserved(t.world);
  }
  assert.ok(delays.size > 1, "the wait is random (seeded)");
});

test("no proxy answer without ip_forward or without proxy_arp: the pod's resolution fails", () => {
  for (const options of [{ forward: false }, { proxyArp: false }]) {
    const t = calicoNode(options);
    t.ping();
    t.world.sim.run();
    assert.equal(t.cap.of("eth0", "rx").filter((f) => read16(f.bytes, 12) === 0x0806).length, 0);
    assert.equal(t.cap.of("eth0", "tx").length, 3, "three requests, no answer");
    assert.deepEqual(t.replies, [3], "ICMP host unreachable from the pod's own stack");
    assertConserved(t.world);
  }
});

/** A and B on a veth; B also owns 172.16.0.1 on a second interface. */
function pair() {
  const { world, sink } = newWorld(5);
  const a = new NetNamespace(world, "a", "n");
  const b = new NetNamespace(world, "b", "n");
  const [va, vb] = vethBetween(world, a, "va", mac("02:00:00:00:00:0a"), b, "vb", mac("02:00:00:00:00:0b"));
  const other = new EthernetDevice(world, "eth1", mac("02:00:00:00:00:bb"), 1500);
  unwrap(b.addDevice(other));
  addr(a, va, "10.0.0.1/24");
  addr(b, vb, "10.0.0.2/24");
  addr(b, other, "172.16.0.1/24");
  return { world, sink, a, b, va, vb, cap: Capture.on(va) };
}

function arpFrame(op: number, ethDst: number, sha: number, sip: number, tha: number, tip: number): Uint8Array {
  const f = new Uint8Array(42);
  writeMac(f, 0, ethDst);
  writeMac(f, 6, sha);
  write16(f, 12, 0x0806);
  f.set([0, 1, 8, 0, 6, 4], 14);
  write16(f, 20, op);
  writeMac(f, 22, sha);
  write32(f, 28, sip);
  writeMac(f, 32, tha);
  write32(f, 38, tip);
  return f;
}

test("ARP requests for any local address are answered (arp_ignore 0), only for the interface's own with arp_ignore 1", () => {
  const t = pair();
  injectTx(t.world, t.va, arpFrame(1, BROADCAST_MAC, t.va.mac, ip("10.0.0.1"), 0, ip("172.16.0.1")));
  t.world.sim.run();
  const replies = t.cap.of("va", "rx");
  assert.equal(replies.length, 1);
  assert.equal(readMac(replies[0]!.bytes, 22), t.vb.mac, "answered with the receiving interface's MAC");
  assert.equal(read32(replies[0]!.bytes, 28), ip("172.16.0.1"));
  t.b.sysctl.arpIgnore.set(t.vb.ifindex, 1);
  injectTx(t.world, t.va, arpFrame(1, BROADCAST_MAC, t.va.mac, ip("10.0.0.1"), 0, ip("172.16.0.1")));
  injectTx(t.world, t.va, arpFrame(1, BROADCAST_MAC, t.va.mac, ip("10.0.0.1"), 0, ip("10.0.0.2")));
  t.world.sim.run();
  assert.equal(t.cap.of("va", "rx").length, 2, "only the request for vb's own address got an answer");
  assertConserved(t.world);
});

test("entries come from requests addressed to us, not from unsolicited replies or requests for others", () => {
  const t = pair();
  const stranger = mac("02:00:00:00:00:99");
  injectTx(t.world, t.va, arpFrame(2, t.vb.mac, stranger, ip("10.0.0.9"), t.vb.mac, ip("10.0.0.2")));
  injectTx(t.world, t.va, arpFrame(1, BROADCAST_MAC, stranger, ip("10.0.0.8"), 0, ip("10.0.0.77")));
  t.world.sim.run();
  assert.equal(t.b.neigh.lookup(t.vb, ip("10.0.0.9")), undefined, "unsolicited reply ignored (arp_accept 0)");
  assert.equal(t.b.neigh.lookup(t.vb, ip("10.0.0.8")), undefined, "request for someone else ignored");
  injectTx(t.world, t.va, arpFrame(1, BROADCAST_MAC, stranger, ip("10.0.0.8"), 0, ip("10.0.0.2")));
  t.world.sim.run();
  assert.equal(t.b.neigh.lookup(t.vb, ip("10.0.0.8"))?.mac, stranger);
  const replies = t.cap.of("va", "rx");
  assert.equal(replies.length, 1, "only the request for B's address was answered");
  assert.equal(readMac(replies[0]!.bytes, 0), stranger);
  assertConserved(t.world);
});

test("an RFC 5227 probe (sender 0.0.0.0) for our address gets a reply to 0.0.0.0", () => {
  const t = pair();
  injectTx(t.world, t.va, arpFrame(1, BROADCAST_MAC, t.va.mac, 0, 0, ip("10.0.0.2")));
  t.world.sim.run();
  const reply = t.cap.of("va", "rx")[0]!.bytes;
  assert.equal(read16(reply, 20), 2);
  assert.equal(read32(reply, 38), 0, "target protocol address 0.0.0.0");
  assert.equal(readMac(reply, 0), t.va.mac);
  assert.equal(t.b.neigh.lookup(t.vb, 0), undefined);
  assertConserved(t.world);
});
