// Ping: ICMP echo like iputils ping (or busybox ping): one request per interval with identifier,
// sequence and 56 data bytes (iputils: a struct timeval then the bytes 0x10, 0x11, ...), replies
// matched by identifier, RTT statistics, ICMP errors reported as "From X icmp_seq=N ...", and
// the tool's output lines and summary. With a count, it stops when every reply is in or after
// the linger time (10 s, iputils' MAXWAIT) following the last request.

import type { NetNamespace } from "../../net/stack/index.js";
import { IcmpKind, IcmpMux, type IcmpErrorInfo } from "../../net/tcp/index.js";
import { IPPROTO_ICMP, IP_DF, newPacket, writeIpv4Header } from "../../net/stack/ip-packet.js";
import { write16, write32 } from "../../wire/bytes.js";
import { setL4ChecksumV4 } from "../../wire/checksum.js";
import { formatIPv4 } from "../../util/ip.js";
import { DEFAULT_EPOCH_MS } from "./sim-clock.js";

export const PingStyle = { IPUTILS: "iputils", BUSYBOX: "busybox" } as const;
export type PingStyle = (typeof PingStyle)[keyof typeof PingStyle];

export interface PingOptions {
  readonly count?: number;
  readonly intervalNs?: number;
  /** Data bytes after the 8-byte ICMP header (-s, default 56). */
  readonly size?: number;
  readonly ttl?: number;
  /** Echo identifier (default: from the namespace's random stream, like a process id). */
  readonly id?: number;
  /** How long to wait for outstanding replies after the last request (-W / MAXWAIT). */
  readonly lingerNs?: number;
  readonly style?: PingStyle;
  readonly epochMs?: number;
  /** The destination as the user named it, printed in the header and summary (default: the address). */
  readonly displayName?: string;
}

export interface PingReply {
  readonly seq: number;
  readonly from: number;
  readonly ttl: number;
  readonly bytes: number;
  readonly rttNs: number;
}

export interface PingResult {
  readonly transmitted: number;
  readonly received: number;
  readonly errors: number;
  readonly replies: readonly PingReply[];
  readonly lines: readonly string[];
  /** min/avg/max/mdev in ns (0 when nothing came back). */
  readonly rtt: { readonly min: number; readonly avg: number; readonly max: number; readonly mdev: number };
}

const IPV4_HEADER = 20;
const ICMP_HEADER = 8;

const UNREACH_TEXT = [
  "Destination Net Unreachable", "Destination Host Unreachable", "Destination Protocol Unreachable", "Destination Port Unreachable",
  "Frag needed", "Source Route Failed", "Destination Net Unknown", "Destination Host Unknown", "Source Host Isolated",
  "Destination Net Prohibited", "Destination Host Prohibited", "Destination Net Unreachable for Type of Service",
  "Destination Host Unreachable for Type of Service", "Packet filtered", "Precedence Violation", "Precedence Cutoff",
] as const;

/** iputils' RTT print: 3 significant decimals below 1 ms, fewer above (time=0.045 / 1.23 / 12.3 / 123 ms). */
export function formatIputilsRtt(rttNs: number): string {
  const us = Math.floor(rttNs / 1000);
  if (us >= 100000 - 50) return `${Math.floor((us + 500) / 1000)}`;
  if (us >= 10000 - 5) return `${Math.floor((us + 50) / 1000)}.${Math.floor(((us + 50) % 1000) / 100)}`;
  if (us >= 1000) return `${Math.floor((us + 5) / 1000)}.${String(Math.floor(((us + 5) % 1000) / 10)).padStart(2, "0")}`;
  return `${Math.floor(us / 1000)}.${String(us % 1000).padStart(3, "0")}`;
}

const ms3 = (us: number): string => `${Math.floor(us / 1000)}.${String(Math.floor(us % 1000)).padStart(3, "0")}`;

export class Ping {
  private seq: number;
  private transmitted = 0;
  private errors = 0;
  private readonly replies: PingReply[] = [];
  private readonly sentAt = new Map<number, number>();
  private readonly lines: string[] = [];
  private readonly id: number;
  private ipId: number;
  private timer = 0;
  private startNs = 0;
  private lastNs = 0;
  private done = false;
  private readonly style: PingStyle;
  private readonly size: number;

  constructor(
    readonly ns: NetNamespace,
    readonly dst: number,
    private readonly options: PingOptions,
    private readonly onDone: (result: PingResult) => void,
  ) {
    const rng = ns.rng.fork();
    const mux = IcmpMux.of(ns);
    let id = options.id ?? rng.nextInt(0x10000);
    while (options.id === undefined && mux.echoIdInUse(id)) id = (id + 1) & 0xffff;
    this.id = id;
    this.ipId = rng.nextInt(0x10000);
    this.style = options.style ?? PingStyle.IPUTILS;
    this.size = options.size ?? 56;
    this.seq = this.style === PingStyle.BUSYBOX ? 0 : 1;
  }

  start(): void {
    const mux = IcmpMux.of(this.ns);
    mux.onEcho(this.id, (seq, from, ttl, data) => this.reply(seq, from, ttl, data.length), (seq, e) => this.error(seq, e));
    const d = formatIPv4(this.dst);
    const name = this.options.displayName ?? d;
    this.lines.push(this.style === PingStyle.BUSYBOX ? `PING ${name} (${d}): ${this.size} data bytes` : `PING ${name} (${d}) ${this.size}(${this.size + 28}) bytes of data.`);
    this.startNs = this.ns.world.sim.now;
    this.send();
  }

  /** Ctrl-C: stop now and print the summary. */
  stop(): void {
    this.finish();
  }

  private send(): void {
    if (this.done) return;
    const sim = this.ns.world.sim;
    const count = this.options.count;
    if (count !== undefined && this.transmitted >= count) return;
    const seq = this.seq++ & 0xffff;
    this.transmitted++;
    this.sentAt.set(seq, sim.now);
    this.lastNs = sim.now;
    this.transmit(seq);
    const interval = this.options.intervalNs ?? 1e9;
    if (count !== undefined && this.transmitted >= count) {
      this.timer = sim.schedule(this.options.lingerNs ?? 10e9, () => this.finish());
    } else {
      this.timer = sim.schedule(interval, () => this.send());
    }
  }

  private transmit(seq: number): void {
    const ns = this.ns;
    const route = ns.routes.lookup(this.dst);
    const src = route === null ? 0 : ns.routeSource(route, this.dst);
    const icmpLen = ICMP_HEADER + this.size;
    const skb = newPacket(ns.world, IPV4_HEADER + icmpLen);
    const b = skb.data;
    const at = skb.head;
    writeIpv4Header(b, at, 0, IPV4_HEADER + icmpLen, this.ipId, IP_DF, this.options.ttl ?? 64, IPPROTO_ICMP, src, this.dst);
    this.ipId = (this.ipId + 1) & 0xffff;
    const l4 = at + IPV4_HEADER;
    b[l4] = 8;
    b[l4 + 1] = 0;
    write16(b, l4 + 4, this.id);
    write16(b, l4 + 6, seq);
    const data = l4 + ICMP_HEADER;
    const wallUs = (this.options.epochMs ?? DEFAULT_EPOCH_MS) * 1000 + Math.floor(ns.world.sim.now / 1000);
    if (this.style === PingStyle.IPUTILS && this.size >= 16) {
      // struct timeval on x86-64, little-endian: tv_sec (8 bytes), tv_usec (8 bytes).
      writeLe64(b, data, Math.floor(wallUs / 1e6));
      writeLe64(b, data + 8, wallUs % 1e6);
      for (let i = 16; i < this.size; i++) b[data + i] = i & 0xff;
    } else if (this.size >= 4) {
      write32(b, data, wallUs >>> 0);
    }
    setL4ChecksumV4(b, l4, icmpLen, IPPROTO_ICMP, src, this.dst);
    ns.outputIp(skb);
  }

  private reply(seq: number, from: number, ttl: number, dataLen: number): void {
    const sent = this.sentAt.get(seq);
    if (sent === undefined || this.done) return;
    this.sentAt.delete(seq);
    const now = this.ns.world.sim.now;
    this.lastNs = now;
    const r: PingReply = { seq, from, ttl, bytes: dataLen + ICMP_HEADER, rttNs: now - sent };
    this.replies.push(r);
    const f = formatIPv4(from);
    this.lines.push(this.style === PingStyle.BUSYBOX
      ? `${r.bytes} bytes from ${f}: seq=${seq} ttl=${ttl} time=${ms3(Math.floor(r.rttNs / 1000))} ms`
      : `${r.bytes} bytes from ${f}: icmp_seq=${seq} ttl=${ttl} time=${formatIputilsRtt(r.rttNs)} ms`);
    if (this.options.count !== undefined && this.transmitted >= this.options.count && this.sentAt.size === 0) this.finish();
  }

  private error(seq: number, e: IcmpErrorInfo): void {
    if (this.done || !this.sentAt.has(seq)) return;
    this.sentAt.delete(seq);
    this.errors++;
    const text = e.type === IcmpKind.TIME_EXCEEDED ? "Time to live exceeded" : e.type === IcmpKind.DEST_UNREACH ? (UNREACH_TEXT[e.code] ?? `Dest Unreachable, Bad Code: ${e.code}`) : `ICMP type ${e.type}`;
    this.lines.push(`From ${formatIPv4(e.from)} icmp_seq=${seq} ${text}`);
    if (this.options.count !== undefined && this.transmitted >= this.options.count && this.sentAt.size === 0) this.finish();
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    const sim = this.ns.world.sim;
    if (this.timer !== 0) sim.cancel(this.timer);
    IcmpMux.of(this.ns).onEcho(this.id, null);
    const n = this.replies.length;
    const rtts = this.replies.map((r) => Math.floor(r.rttNs / 1000));
    const sum = rtts.reduce((a, b) => a + b, 0);
    const sum2 = rtts.reduce((a, b) => a + b * b, 0);
    const avg = n > 0 ? sum / n : 0;
    const mdev = n > 0 ? Math.sqrt(Math.max(0, sum2 / n - avg * avg)) : 0;
    const min = n > 0 ? Math.min(...rtts) : 0;
    const max = n > 0 ? Math.max(...rtts) : 0;
    const d = this.options.displayName ?? formatIPv4(this.dst);
    const lost = this.transmitted === 0 ? 0 : ((this.transmitted - n) * 100) / this.transmitted;
    this.lines.push("");
    this.lines.push(`--- ${d} ping statistics ---`);
    if (this.style === PingStyle.BUSYBOX) {
      this.lines.push(`${this.transmitted} packets transmitted, ${n} packets received, ${Math.floor(lost)}% packet loss`);
      if (n > 0) this.lines.push(`round-trip min/avg/max = ${ms3(min)}/${ms3(Math.floor(avg))}/${ms3(max)} ms`);
    } else {
      const errs = this.errors > 0 ? `, +${this.errors} errors` : "";
      const elapsed = Math.floor((this.lastNs - this.startNs) / 1e6);
      this.lines.push(`${this.transmitted} packets transmitted, ${n} received${errs}, ${formatPercent(lost)}% packet loss, time ${elapsed}ms`);
      // iputils ends with the rtt line, or with an empty line when nothing came back.
      this.lines.push(n > 0 ? `rtt min/avg/max/mdev = ${ms3(min)}/${ms3(Math.floor(avg))}/${ms3(max)}/${ms3(Math.floor(mdev))} ms` : "");
    }
    this.onDone({
      transmitted: this.transmitted,
      received: n,
      errors: this.errors,
      replies: this.replies,
      lines: this.lines,
      rtt: { min: min * 1000, avg: Math.floor(avg) * 1000, max: max * 1000, mdev: Math.floor(mdev) * 1000 },
    });
  }
}

/** printf("%g") of a loss percentage as iputils prints it (0, 100, 33.3333, 66.6667). */
function formatPercent(p: number): string {
  return Number(p.toPrecision(6)).toString();
}

function writeLe64(b: Uint8Array, at: number, v: number): void {
  let x = v;
  for (let i = 0; i < 8; i++) {
    b[at + i] = x % 256;
    x = Math.floor(x / 256);
  }
}
