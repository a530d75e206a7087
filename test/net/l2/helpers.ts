// Shared fixtures for the L2/tunnel tests: a world, frame builders with real checksums, capture
// taps, a sink endpoint that counts what it receives as delivered, and the conservation check.

import assert from "node:assert/strict";
import { resolve } from "node:path";
import { Simulator } from "../../../src/engine/simulator.js";
import type { CaptureTap, MasterPort, NetDevice, StackPort } from "../../../src/net/device.js";
import { NetWorld } from "../../../src/net/world.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { DeliveryKind } from "../../../src/trace/ledger.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { writeMac } from "../../../src/util/mac.js";
import { write16, write32 } from "../../../src/wire/bytes.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { openCapture } from "../../../src/pcap/open-capture.js";

export const sharedPath = (rel: string): string => resolve(process.cwd(), "../shared", rel);

export function makeWorld(seed = 7): { sim: Simulator; world: NetWorld; drops: RingSink } {
  const sim = new Simulator({ seed });
  const world = new NetWorld(sim);
  const drops = new RingSink();
  world.tracer.addSink({ drop: (r) => drops.drop(r) });
  return { sim, world, drops };
}

export const ip = (text: string): number => text.split(".").reduce((a, o) => a * 256 + Number(o), 0);
export const mac = (n: number): number => 0x020000000000 + n;

export interface UdpFrameSpec {
  readonly dstMac: number;
  readonly srcMac: number;
  readonly src: number;
  readonly dst: number;
  readonly sport?: number;
  readonly dport?: number;
  readonly payload?: number;
  readonly ttl?: number;
  readonly tos?: number;
  readonly df?: boolean;
  readonly id?: number;
}

/** An Ethernet + IPv4 + UDP frame with valid checksums. */
export function udpFrame(s: UdpFrameSpec): Uint8Array {
  const payload = s.payload ?? 18;
  const f = new Uint8Array(14 + 20 + 8 + payload);
  writeMac(f, 0, s.dstMac);
  writeMac(f, 6, s.srcMac);
  write16(f, 12, 0x0800);
  f[14] = 0x45;
  f[15] = s.tos ?? 0;
  write16(f, 16, 20 + 8 + payload);
  write16(f, 18, s.id ?? 0x1234);
  write16(f, 20, s.df === true ? 0x4000 : 0);
  f[22] = s.ttl ?? 64;
  f[23] = 17;
  write32(f, 26, s.src);
  write32(f, 30, s.dst);
  setIpv4HeaderChecksum(f, 14, 20);
  write16(f, 34, s.sport ?? 40000);
  write16(f, 36, s.dport ?? 9000);
  write16(f, 38, 8 + payload);
  for (let i = 0; i < payload; i++) f[42 + i] = (i * 7) & 0xff;
  setL4ChecksumV4(f, 34, 8 + payload, 17, s.src, s.dst);
  return f;
}

/** A bare Ethernet frame of the given EtherType and length. */
export function rawFrame(dstMac: number, srcMac: number, etherType = 0x88b5, length = 60): Uint8Array {
  const f = new Uint8Array(length);
  writeMac(f, 0, dstMac);
  writeMac(f, 6, srcMac);
  write16(f, 12, etherType);
  return f;
}

export function packet(world: NetWorld, bytes: Uint8Array): SkBuff {
  return SkBuff.fromBytes(world.ledger.admit(), bytes);
}

export interface Seen {
  readonly dev: string;
  readonly dir: "rx" | "tx";
  readonly bytes: Uint8Array;
}

/** Records copies of every frame a set of devices sees. */
export class Capture implements CaptureTap {
  readonly frames: Seen[] = [];
  constructor(...devs: NetDevice[]) {
    for (const d of devs) d.taps.push(this);
  }
  onFrame(dev: NetDevice, direction: "rx" | "tx", skb: SkBuff): void {
    this.frames.push({ dev: dev.name, dir: direction, bytes: skb.bytes().slice() });
  }
  on(dev: string, dir: "rx" | "tx"): Uint8Array[] {
    return this.frames.filter((f) => f.dev === dev && f.dir === dir).map((f) => f.bytes);
  }
  clear(): void {
    this.frames.length = 0;
  }
}

/** An endpoint's "stack" that accepts every frame as delivered (a host outside the model). */
export class SinkStack implements StackPort, MasterPort {
  readonly got: { dev: string; bytes: Uint8Array }[] = [];
  readonly nodeName = "sink";
  constructor(
    private readonly world: NetWorld,
    readonly name = "sink",
  ) {}
  input(dev: NetDevice, skb: SkBuff): void {
    this.got.push({ dev: dev.name, bytes: skb.bytes().slice() });
    this.world.ledger.deliver(DeliveryKind.EXTERNAL);
  }
  handleFrame(port: NetDevice, skb: SkBuff): void {
    this.input(port, skb);
  }
  deviceByIndex(): NetDevice | undefined {
    return undefined;
  }
}

/** Packet conservation after the run: every packet entered is delivered or dropped. */
export function assertConserved(world: NetWorld): void {
  const l = world.ledger;
  assert.equal(l.entered, l.delivered + l.dropped + l.inFlight);
  assert.equal(l.inFlight, 0, `in flight: ${l.inFlight} (entered ${l.entered}, delivered ${l.delivered}, dropped ${l.dropped})`);
}

/** Records of a classic pcap file (all records, as Uint8Array copies). */
export async function readPcap(path: string): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const rec of openCapture(path)) out.push(rec.data.slice());
  return out;
}

export const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** An IPv4 + UDP packet without L2 (for NetNamespace.outputIp); src 0 lets the route choose. */
export function udpPacket(src: number, dst: number, sport: number, dport: number, payload = 16, opts: { df?: boolean; ttl?: number; tos?: number } = {}): Uint8Array {
  const p = new Uint8Array(20 + 8 + payload);
  p[0] = 0x45;
  p[1] = opts.tos ?? 0;
  write16(p, 2, p.length);
  write16(p, 6, opts.df === true ? 0x4000 : 0);
  p[8] = opts.ttl ?? 64;
  p[9] = 17;
  write32(p, 12, src);
  write32(p, 16, dst);
  setIpv4HeaderChecksum(p, 0, 20);
  write16(p, 20, sport);
  write16(p, 22, dport);
  write16(p, 24, 8 + payload);
  for (let i = 0; i < payload; i++) p[28 + i] = i & 0xff;
  if (src !== 0) setL4ChecksumV4(p, 20, 8 + payload, 17, src, dst);
  return p;
}

/** An ICMP echo request (IPv4, no L2). */
export function echoPacket(src: number, dst: number, id: number, seq: number, payload = 56): Uint8Array {
  const p = new Uint8Array(20 + 8 + payload);
  p[0] = 0x45;
  write16(p, 2, p.length);
  write16(p, 6, 0x4000);
  p[8] = 64;
  p[9] = 1;
  write32(p, 12, src);
  write32(p, 16, dst);
  setIpv4HeaderChecksum(p, 0, 20);
  p[20] = 8;
  write16(p, 24, id);
  write16(p, 26, seq);
  for (let i = 0; i < payload; i++) p[28 + i] = i & 0xff;
  setL4ChecksumV4(p, 20, 8 + payload, 1, src, dst);
  return p;
}
