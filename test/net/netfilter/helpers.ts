// Test doubles for netfilter: a small NetfilterHost (devices with addresses, a route by subnet,
// outputIp that runs OUTPUT/POSTROUTING and records what was sent), a capture device, and packet
// builders that compute every checksum from scratch with the wire layer (an oracle independent of
// netfilter's incremental updates).

import { Simulator } from "../../../src/engine/simulator.js";
import { DeviceKind, NetDevice } from "../../../src/net/device.js";
import { NetWorld } from "../../../src/net/world.js";
import { Netfilter, type NetfilterOptions } from "../../../src/net/netfilter/netfilter.js";
import type { NetfilterHost } from "../../../src/net/netfilter/host.js";
import { NfHook, NfVerdict } from "../../../src/net/netfilter/hooks.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { parseIPv4, ipv4InPrefix } from "../../../src/util/ip.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../../src/wire/checksum.js";

export class TestDevice extends NetDevice {
  readonly kind = DeviceKind.ETHERNET;
  protected xmit(_skb: SkBuff): void {}
}

export const ip = (text: string): number => {
  const v = parseIPv4(text);
  if (v === null) throw new Error(`bad address ${text}`);
  return v;
};

export class TestHost implements NetfilterHost {
  readonly world: NetWorld;
  readonly name = "test-ns";
  readonly nodeName = "test-node";
  readonly netfilter: Netfilter;
  readonly sink = new RingSink();
  /** Packets this namespace sent (after OUTPUT/POSTROUTING accepted them), with their output device. */
  readonly sent: { skb: SkBuff; dev: NetDevice | null }[] = [];
  private readonly devs: { dev: NetDevice; addr: number; prefix: number }[] = [];

  constructor(options: NetfilterOptions = {}, seed = 1) {
    this.world = new NetWorld(new Simulator({ seed }));
    this.world.tracer.addSink(this.sink);
    this.netfilter = new Netfilter(this, options);
  }

  get sim(): Simulator {
    return this.world.sim;
  }

  addDevice(name: string, cidr?: string): NetDevice {
    const dev = new TestDevice(this.world, name, 0x020000000000 + this.devs.length + 1, 1500);
    if (cidr !== undefined) {
      const [a, p] = cidr.split("/");
      this.devs.push({ dev, addr: ip(a!), prefix: Number(p) });
    } else {
      this.devs.push({ dev, addr: 0, prefix: 32 });
    }
    return dev;
  }

  primaryAddress(dev: NetDevice): number {
    return this.devs.find((d) => d.dev === dev)?.addr ?? 0;
  }

  isLocalAddress(addr: number): boolean {
    return this.devs.some((d) => d.addr !== 0 && d.addr === addr);
  }

  /** inet_select_addr-like: dev's address, else the address of the device routing to dst. */
  selectSourceAddress(dst: number, dev: NetDevice | null): number {
    if (dev !== null) return this.primaryAddress(dev);
    const out = this.route(dst);
    return out === null ? 0 : this.primaryAddress(out);
  }

  /** The device whose subnet holds dst (a connected-routes-only routing table). */
  route(dst: number): NetDevice | null {
    return this.devs.find((d) => d.addr !== 0 && ipv4InPrefix(dst, d.addr, d.prefix))?.dev ?? null;
  }

  outputIp(skb: SkBuff): void {
    const dst = (skb.data[skb.head + 16]! << 24) | (skb.data[skb.head + 17]! << 16) | (skb.data[skb.head + 18]! << 8) | skb.data[skb.head + 19]!;
    const out = this.route(dst >>> 0);
    if (this.netfilter.run(NfHook.OUTPUT, skb, null, out) !== NfVerdict.ACCEPT) return;
    if (this.netfilter.run(NfHook.POSTROUTING, skb, null, out) !== NfVerdict.ACCEPT) return;
    this.sent.push({ skb, dev: out });
  }

  /** A packet from raw IPv4 bytes, registered with the ledger. */
  packet(bytes: Uint8Array): SkBuff {
    return SkBuff.fromBytes(this.world.ledger.admit(), bytes);
  }
}

/** ip_decrease_ttl exactly as the kernel does it on little-endian machines (incremental, kernel's zero choice). */
export function decreaseTtl(b: Uint8Array, at: number): void {
  let le = b[at + 10]! | (b[at + 11]! << 8);
  le += 1;
  if (le >= 0xffff) le += 1;
  le &= 0xffff;
  b[at + 10] = le & 0xff;
  b[at + 11] = le >>> 8;
  b[at + 8] = b[at + 8]! - 1;
}

/** What ip_forward does around the hooks: PREROUTING, TTL-1, FORWARD, POSTROUTING. Returns the last verdict. */
export function forward(nf: Netfilter, skb: SkBuff, inDev: NetDevice, outDev: NetDevice): number {
  let v = nf.run(NfHook.PREROUTING, skb, inDev, null);
  if (v !== NfVerdict.ACCEPT) return v;
  decreaseTtl(skb.data, skb.head);
  v = nf.run(NfHook.FORWARD, skb, inDev, outDev);
  if (v !== NfVerdict.ACCEPT) return v;
  return nf.run(NfHook.POSTROUTING, skb, inDev, outDev);
}

/** Local delivery: PREROUTING then INPUT. */
export function deliver(nf: Netfilter, skb: SkBuff, inDev: NetDevice): number {
  const v = nf.run(NfHook.PREROUTING, skb, inDev, null);
  if (v !== NfVerdict.ACCEPT) return v;
  return nf.run(NfHook.INPUT, skb, inDev, null);
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

export function fromHex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "hex"));
}

// ---- packet builders (checksums computed in full by the wire layer) -----------------------------

export interface Ipv4Options {
  readonly ttl?: number;
  readonly id?: number;
  readonly tos?: number;
  readonly df?: boolean;
}

export function ipv4(src: string, dst: string, proto: number, l4: Uint8Array, o: Ipv4Options = {}): Uint8Array {
  const out = new Uint8Array(20 + l4.length);
  out[0] = 0x45;
  out[1] = o.tos ?? 0;
  out[2] = out.length >>> 8;
  out[3] = out.length & 0xff;
  const id = o.id ?? 0x1234;
  out[4] = id >>> 8;
  out[5] = id & 0xff;
  out[6] = o.df === false ? 0 : 0x40;
  out[8] = o.ttl ?? 64;
  out[9] = proto;
  const s = ip(src);
  const d = ip(dst);
  for (let k = 0; k < 4; k++) {
    out[12 + k] = (s >>> (24 - 8 * k)) & 0xff;
    out[16 + k] = (d >>> (24 - 8 * k)) & 0xff;
  }
  out.set(l4, 20);
  if (proto === 6 || proto === 17 || proto === 1) setL4ChecksumV4(out, 20, l4.length, proto, s, d);
  setIpv4HeaderChecksum(out, 0, 20);
  return out;
}

export const TCP = { FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10 } as const;

export interface TcpOptions {
  readonly seq?: number;
  readonly ack?: number;
  readonly window?: number;
  readonly payload?: Uint8Array;
  /** Raw option bytes (multiple of 4). */
  readonly options?: Uint8Array;
}

export function tcpSeg(src: string, sport: number, dst: string, dport: number, flags: number, o: TcpOptions = {}, ipo: Ipv4Options = {}): Uint8Array {
  const opts = o.options ?? new Uint8Array(0);
  const payload = o.payload ?? new Uint8Array(0);
  const l4 = new Uint8Array(20 + opts.length + payload.length);
  l4[0] = sport >>> 8;
  l4[1] = sport & 0xff;
  l4[2] = dport >>> 8;
  l4[3] = dport & 0xff;
  const seq = o.seq ?? 1000;
  const ack = o.ack ?? 0;
  for (let k = 0; k < 4; k++) {
    l4[4 + k] = (seq >>> (24 - 8 * k)) & 0xff;
    l4[8 + k] = (ack >>> (24 - 8 * k)) & 0xff;
  }
  l4[12] = ((20 + opts.length) / 4) << 4;
  l4[13] = flags;
  const win = o.window ?? 64240;
  l4[14] = win >>> 8;
  l4[15] = win & 0xff;
  l4.set(opts, 20);
  l4.set(payload, 20 + opts.length);
  return ipv4(src, dst, 6, l4, ipo);
}

export function udpDgram(src: string, sport: number, dst: string, dport: number, payload: Uint8Array, o: { zeroChecksum?: boolean } & Ipv4Options = {}): Uint8Array {
  const l4 = new Uint8Array(8 + payload.length);
  l4[0] = sport >>> 8;
  l4[1] = sport & 0xff;
  l4[2] = dport >>> 8;
  l4[3] = dport & 0xff;
  l4[4] = l4.length >>> 8;
  l4[5] = l4.length & 0xff;
  l4.set(payload, 8);
  const pkt = ipv4(src, dst, 17, l4, o);
  if (o.zeroChecksum === true) {
    pkt[26] = 0;
    pkt[27] = 0;
  }
  return pkt;
}

export function icmpMsg(src: string, dst: string, type: number, code: number, rest: number, payload: Uint8Array, o: Ipv4Options = {}): Uint8Array {
  const l4 = new Uint8Array(8 + payload.length);
  l4[0] = type;
  l4[1] = code;
  for (let k = 0; k < 4; k++) l4[4 + k] = (rest >>> (24 - 8 * k)) & 0xff;
  l4.set(payload, 8);
  return ipv4(src, dst, 1, l4, o);
}

export function echo(src: string, dst: string, type: 8 | 0, id: number, seq: number, o: Ipv4Options = {}): Uint8Array {
  return icmpMsg(src, dst, type, 0, ((id << 16) | seq) >>> 0, new TextEncoder().encode("abcdefgh"), o);
}

export const text = (s: string): Uint8Array => new TextEncoder().encode(s);
