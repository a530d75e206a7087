// Test topologies for the host stack: namespaces joined by veth pairs or by EthernetDevices on a
// Link, frame capture taps, hex helpers and the packet-conservation check every scenario ends with.

import assert from "node:assert/strict";
import { Simulator } from "../../../src/engine/simulator.js";
import type { CaptureTap, NetDevice } from "../../../src/net/device.js";
import { VethDevice } from "../../../src/net/veth.js";
import { NetWorld } from "../../../src/net/world.js";
import { NetNamespace, RouteType } from "../../../src/net/stack/index.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { parseIPv4 } from "../../../src/util/ip.js";
import { parseMac } from "../../../src/util/mac.js";
import { unwrap } from "../../../src/util/result.js";

export const ip = (text: string): number => {
  const v = parseIPv4(text);
  if (v === null) throw new Error(`bad address ${text}`);
  return v;
};

export const mac = (text: string): number => {
  const v = parseMac(text);
  if (v === null) throw new Error(`bad MAC ${text}`);
  return v;
};

export function fromHex(hex: string): Uint8Array {
  const clean = hex.replace(/[^0-9a-f]/gi, "");
  return Uint8Array.from(clean.match(/../g) ?? [], (h) => parseInt(h, 16));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

export interface CapturedFrame {
  readonly dev: string;
  readonly dir: "rx" | "tx";
  readonly time: number;
  readonly bytes: Uint8Array;
}

/** Records copies of every frame a device sends or receives. */
export class Capture implements CaptureTap {
  readonly frames: CapturedFrame[] = [];
  onFrame(dev: NetDevice, dir: "rx" | "tx", skb: SkBuff, timeNs: number): void {
    this.frames.push({ dev: dev.name, dir, time: timeNs, bytes: skb.bytes().slice() });
  }
  static on(...devs: NetDevice[]): Capture {
    const c = new Capture();
    for (const d of devs) d.taps.push(c);
    return c;
  }
  of(dev: string, dir: "rx" | "tx"): CapturedFrame[] {
    return this.frames.filter((f) => f.dev === dev && f.dir === dir);
  }
}

export function newWorld(seed = 1): { world: NetWorld; sink: RingSink } {
  const world = new NetWorld(new Simulator({ seed }));
  const sink = new RingSink();
  world.tracer.addSink(sink);
  return { world, sink };
}

/** Joins two namespaces with a veth pair, one end in each. */
export function vethBetween(
  world: NetWorld,
  a: NetNamespace, aName: string, aMac: number,
  b: NetNamespace, bName: string, bMac: number,
  mtu = 1500,
): [VethDevice, VethDevice] {
  const [x, y] = VethDevice.pair(world, aName, aMac, bName, bMac, mtu);
  unwrap(a.addDevice(x));
  unwrap(b.addDevice(y));
  return [x, y];
}

export function addr(ns: NetNamespace, dev: NetDevice, cidr: string): void {
  const [a, p] = cidr.split("/");
  unwrap(ns.addAddress(dev, ip(a!), Number(p)));
}

/** Every packet that entered ended delivered or dropped (call after sim.run()). */
export function assertConserved(world: NetWorld): void {
  const l = world.ledger;
  assert.equal(l.entered, l.delivered + l.dropped + l.inFlight, "ledger identity");
  assert.equal(l.inFlight, 0, `packets still in flight: ${l.inFlight}`);
}

/** Injects raw frame bytes as if dev's own driver sent them (bypassing its namespace's stack). */
export function injectTx(world: NetWorld, dev: NetDevice, bytes: Uint8Array): void {
  dev.transmit(SkBuff.fromBytes(world.ledger.admit(), bytes));
}

/** The kernel-golden topology: A -- R -- B with the captures' MACs, addresses, routes and sysctls (see kernel-golden.sh). */
export function goldenTopology(seed = 1) {
  const { world, sink } = newWorld(seed);
  const a = new NetNamespace(world, "gld-a", "node-a");
  const r = new NetNamespace(world, "gld-r", "node-r");
  const b = new NetNamespace(world, "gld-b", "node-b");
  const [va, vra] = vethBetween(world, a, "va", mac("02:00:00:01:00:02"), r, "vra", mac("02:00:00:01:00:01"));
  const [vb, vrb] = vethBetween(world, b, "vb", mac("02:00:00:02:00:02"), r, "vrb", mac("02:00:00:02:00:01"));
  vrb.mtu = 1400;
  addr(a, va, "10.1.0.2/24");
  addr(r, vra, "10.1.0.1/24");
  addr(r, vrb, "10.2.0.1/24");
  addr(b, vb, "10.2.0.2/24");
  unwrap(a.routes.add({ dst: 0, prefixLen: 0, via: ip("10.1.0.1") }));
  unwrap(b.routes.add({ dst: 0, prefixLen: 0, via: ip("10.2.0.1") }));
  unwrap(r.routes.add({ dst: ip("169.254.0.0"), prefixLen: 16, via: ip("10.2.0.2") }));
  unwrap(a.routes.add({ dst: ip("10.77.0.0"), prefixLen: 16, via: ip("169.254.1.1"), dev: va, onlink: true }));
  unwrap(r.routes.add({ dst: ip("10.60.0.0"), prefixLen: 16, type: RouteType.UNREACHABLE }));
  unwrap(r.routes.add({ dst: ip("10.61.0.0"), prefixLen: 16, type: RouteType.PROHIBIT }));
  unwrap(r.routes.add({ dst: ip("10.62.0.0"), prefixLen: 16, type: RouteType.BLACKHOLE }));
  r.sysctl.ipForward = true;
  r.sysctl.proxyArp.add(vra.ifindex);
  r.neigh.parms(vra).proxyDelayNs = 0;
  return { world, sink, a, r, b, va, vra, vb, vrb };
}
