// Test topologies for TCP: two namespaces on a veth pair (no delay, like the kernel capture), two
// hosts on an Ethernet link with bandwidth/latency/loss, and client -- router -- server with a
// bottleneck link; frame capture taps, address helpers and the ledger-conservation check.

import assert from "node:assert/strict";
import { Simulator } from "../../../src/engine/simulator.js";
import type { CaptureTap, NetDevice } from "../../../src/net/device.js";
import { TcVerdict, type AttachedProgram } from "../../../src/net/hook.js";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { DEFAULT_LINK, Link, type LinkParams, type WireTap } from "../../../src/net/link.js";
import { VethDevice } from "../../../src/net/veth.js";
import { NetWorld } from "../../../src/net/world.js";
import { NetNamespace } from "../../../src/net/stack/index.js";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import type { SkBuff } from "../../../src/skb/skbuff.js";
import { parseIPv4 } from "../../../src/util/ip.js";
import { unwrap } from "../../../src/util/result.js";

export const ip = (text: string): number => {
  const v = parseIPv4(text);
  if (v === null) throw new Error(`bad address ${text}`);
  return v;
};

export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");
export const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, "hex"));

export interface Frame {
  readonly dev: string;
  readonly dir: "rx" | "tx";
  readonly time: number;
  readonly bytes: Uint8Array;
}

/** Records copies of the frames devices send (and receive, when asked). */
export class Capture implements CaptureTap {
  readonly frames: Frame[] = [];
  constructor(private readonly dirs: ReadonlySet<"rx" | "tx"> = new Set(["tx"])) {}
  onFrame(dev: NetDevice, dir: "rx" | "tx", skb: SkBuff, timeNs: number): void {
    if (this.dirs.has(dir)) this.frames.push({ dev: dev.name, dir, time: timeNs, bytes: skb.bytes().slice() });
  }
  /** Captures what the devices send; `both` adds what they receive (tcpdump on one interface). */
  static on(devs: NetDevice | NetDevice[], both = false): Capture {
    const c = new Capture(new Set(both ? ["rx", "tx"] : ["tx"]));
    for (const d of Array.isArray(devs) ? devs : [devs]) d.taps.push(c);
    return c;
  }
  /** TCP frames (IPv4 proto 6) in capture order. */
  tcp(): Frame[] {
    return this.frames.filter((f) => f.bytes[12] === 0x08 && f.bytes[13] === 0x00 && f.bytes[23] === 6);
  }
}

/** Records copies of the frames on a link's wire (GSO super-packets as their segments). */
export class WireCapture implements WireTap {
  readonly frames: { from: string; time: number; bytes: Uint8Array }[] = [];
  onWireFrame(_link: Link, from: NetDevice, frame: Uint8Array, timeNs: number): void {
    this.frames.push({ from: from.name, time: timeNs, bytes: frame.slice() });
  }
  static on(link: Link): WireCapture {
    const c = new WireCapture();
    link.taps.push(c);
    return c;
  }
  tcp(): { from: string; time: number; bytes: Uint8Array }[] {
    return this.frames.filter((f) => f.bytes[12] === 0x08 && f.bytes[13] === 0x00 && f.bytes[23] === 6);
  }
}

/**
 * An onConnect/onWritable handler that writes all of `data` as fast as the socket takes it (at most
 * `chunk` bytes per send call), then ends the connection: a bulk sender such as iperf's.
 */
export function bulkWriter(data: Uint8Array, chunk = 65536): (s: TcpSocket) => void {
  let written = 0;
  return (s) => {
    while (written < data.length) {
      const n = s.send(data, written, Math.min(chunk, data.length - written));
      if (n === 0) return;
      written += n;
    }
    s.end();
  };
}

export function newWorld(seed = 1): NetWorld {
  return new NetWorld(new Simulator({ seed }));
}

function addr(ns: NetNamespace, dev: NetDevice, cidr: string): void {
  const [a, p] = cidr.split("/");
  unwrap(ns.addAddress(dev, ip(a!), Number(p)));
}

/** A (10.9.0.1) and B (10.9.0.2) on a veth pair with the kernel capture's MACs. */
export function vethPair(seed = 1, mtu = 1500) {
  const world = newWorld(seed);
  const a = new NetNamespace(world, "tcp-a", "node-a");
  const b = new NetNamespace(world, "tcp-b", "node-b");
  const [va, vb] = VethDevice.pair(world, "va", 0x02000000_0a01, "vb", 0x02000000_0b01, mtu);
  unwrap(a.addDevice(va));
  unwrap(b.addDevice(vb));
  addr(a, va, "10.9.0.1/24");
  addr(b, vb, "10.9.0.2/24");
  return { world, a, b, va, vb };
}

/** Two hosts on one Ethernet link (10.9.0.1 -- 10.9.0.2). */
export function linked(params: Partial<LinkParams> = {}, seed = 1) {
  const world = newWorld(seed);
  const a = new NetNamespace(world, "host-a", "node-a");
  const b = new NetNamespace(world, "host-b", "node-b");
  const link = { ...DEFAULT_LINK, ...params };
  const ea = new EthernetDevice(world, "eth0", 0x02000000_0a01, link.mtu);
  const eb = new EthernetDevice(world, "eth0", 0x02000000_0b01, link.mtu);
  unwrap(a.addDevice(ea));
  unwrap(b.addDevice(eb));
  const wire = new Link(world, ea, eb, link);
  ea.link = wire;
  eb.link = wire;
  addr(a, ea, "10.9.0.1/24");
  addr(b, eb, "10.9.0.2/24");
  return { world, a, b, ea, eb, link: wire };
}

/**
 * client (10.1.0.2) -- R -- server (10.2.0.2): a fast access link and a bottleneck link on the
 * server side (its parameters given), both Ethernet.
 */
export function routed(bottleneck: Partial<LinkParams>, access: Partial<LinkParams> = {}, seed = 1) {
  const world = newWorld(seed);
  const c = new NetNamespace(world, "client", "node-c");
  const r = new NetNamespace(world, "router", "node-r");
  const s = new NetNamespace(world, "server", "node-s");
  const mk = (ns: NetNamespace, name: string, mac: number, mtu: number): EthernetDevice => {
    const d = new EthernetDevice(world, name, mac, mtu);
    unwrap(ns.addDevice(d));
    return d;
  };
  const p1 = { ...DEFAULT_LINK, ...access };
  const p2 = { ...DEFAULT_LINK, ...bottleneck };
  const ec = mk(c, "eth0", 0x02000001_0002, p1.mtu);
  const r1 = mk(r, "eth1", 0x02000001_0001, p1.mtu);
  const r2 = mk(r, "eth2", 0x02000002_0001, p2.mtu);
  const es = mk(s, "eth0", 0x02000002_0002, p2.mtu);
  const l1 = new Link(world, ec, r1, p1);
  const l2 = new Link(world, r2, es, p2);
  ec.link = l1;
  r1.link = l1;
  r2.link = l2;
  es.link = l2;
  addr(c, ec, "10.1.0.2/24");
  addr(r, r1, "10.1.0.1/24");
  addr(r, r2, "10.2.0.1/24");
  addr(s, es, "10.2.0.2/24");
  unwrap(c.routes.add({ dst: 0, prefixLen: 0, via: ip("10.1.0.1") }));
  unwrap(s.routes.add({ dst: 0, prefixLen: 0, via: ip("10.2.0.1") }));
  r.sysctl.ipForward = true;
  return { world, c, r, s, ec, es, r1, r2, access: l1, bottleneck: l2 };
}

/** Every packet that entered the model was delivered or dropped (call after the run). */
export function assertConserved(world: NetWorld): void {
  const l = world.ledger;
  assert.equal(l.entered, l.delivered + l.dropped + l.inFlight, "ledger identity");
  assert.equal(l.inFlight, 0, `packets still in flight: ${l.inFlight}`);
}

/**
 * Drops, once each, the IPv4/TCP frames arriving at `dev` that `match` selects (given the TCP sequence
 * number and payload length), e.g. to lose one segment and then its retransmission. The device's GRO
 * is turned off so a sender's super-packets arrive as their wire segments, one by one.
 */
export function dropSegments(dev: NetDevice, match: (seq: number, payloadLen: number) => boolean, times = 1): { dropped: number } {
  dev.features.gro = false;
  const state = { dropped: 0 };
  const prog: AttachedProgram = {
    name: "test-drop",
    dropReason: 1000,
    dropSite: "test/net/tcp:drop-segment",
    redirectIfindex: 0,
    redirectIngress: false,
    run(skb) {
      const b = skb.bytes();
      if (state.dropped >= times || b.length < 54 || b[12] !== 0x08 || b[13] !== 0 || b[23] !== 6) return TcVerdict.OK;
      const l4 = 14 + (b[14]! & 15) * 4;
      const seq = ((b[l4 + 4]! << 24) | (b[l4 + 5]! << 16) | (b[l4 + 6]! << 8) | b[l4 + 7]!) >>> 0;
      const len = b.length - l4 - (b[l4 + 12]! >>> 4) * 4;
      if (!match(seq, len)) return TcVerdict.OK;
      state.dropped++;
      return TcVerdict.SHOT;
    },
  };
  dev.tcIngress = prog;
  return state;
}

/**
 * Connects `from` to dst:port and sends all of data: as much of the rest as the send buffer takes,
 * each time it has room, then the FIN. Returns a reader of the bytes accepted so far.
 */
export function sendAll(from: NetNamespace, dst: number, port: number, data: Uint8Array): () => number {
  let sent = 0;
  const write = (s: TcpSocket): void => {
    sent += s.send(data, sent);
    if (sent === data.length) s.end();
  };
  unwrap(TcpStack.of(from).connect(dst, port, { onConnect: write, onWritable: write }));
  return () => sent;
}
