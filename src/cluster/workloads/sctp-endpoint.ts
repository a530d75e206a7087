// SCTP in a network namespace, as far as association setup (RFC 4960 5.1): SctpHost is the namespace's
// IP protocol 132 handler: it checks the CRC32c, hands packets to listening endpoints and client
// bindings by port, and applies the out-of-the-blue rules of RFC 4960 8.4 to ports nobody listens on.
// SctpEndpoint is a listening socket: INIT is answered with INIT ACK (carrying a State Cookie), COOKIE
// ECHO with COOKIE ACK. Linux loads sctp.ko once for every namespace; here a namespace gets SCTP when
// it first uses it, and one without answers an INIT with ICMP protocol unreachable (ip_local_deliver
// with no handler): either way the attempt is refused.
import { DropReason, TracePoint } from "../../../datapath/reasons.js";
import { IcmpMux, type IcmpErrorInfo } from "../../net/tcp/icmp-mux.js";
import type { NetDevice } from "../../net/device.js";
import type { NetNamespace, SocketInfo } from "../../net/stack/index.js";
import { SkBuff } from "../../skb/skbuff.js";
import { DeliveryKind } from "../../trace/ledger.js";
import { read16, read32, write16, write32 } from "../../wire/bytes.js";
import {
  buildSctpPacket,
  findSctpParam,
  IPPROTO_SCTP,
  parseSctpChunks,
  sctpParam,
  SctpChunkType,
  SctpParamType,
  verifySctpChecksum,
  SCTP_HEADER_LENGTH,
  type SctpChunkRepr,
} from "../../wire/sctp.js";
import { err, ok, type Result } from "../../util/result.js";

/** One received SCTP packet, as a binding sees it. */
export interface SctpPacket {
  readonly src: number;
  readonly dst: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly verificationTag: number;
  readonly chunks: readonly SctpChunkRepr[];
}

export interface SctpBinding {
  packet(p: SctpPacket): void;
  /** An ICMP error quoting one of our packets to `error.dst` (e.g. protocol unreachable). */
  icmpError?(error: IcmpErrorInfo): void;
}

/** Linux defaults of a new association's INIT / INIT ACK: a_rwnd, outbound streams, max inbound streams. */
export const SCTP_DEFAULTS = { aRwnd: 106496, outboundStreams: 10, inboundStreams: 65535 } as const;
const EPHEMERAL_FIRST = 32768;
const EPHEMERAL_LAST = 60999;
const COOKIE_LENGTH = 20;

const hosts = new WeakMap<NetNamespace, SctpHost>();

export class SctpHost {
  /** Out-of-the-blue packets answered with ABORT (RFC 4960 8.4 rules 3 and 8). */
  ootbAborts = 0;
  private readonly bindings = new Map<number, SctpBinding>();
  private nextEphemeral = EPHEMERAL_FIRST;

  private constructor(readonly ns: NetNamespace) {}

  /** The namespace's SCTP (registers IP protocol 132 on first use); an error when 132 is taken. */
  static of(ns: NetNamespace): Result<SctpHost, string> {
    const known = hosts.get(ns);
    if (known !== undefined) return ok(known);
    const host = new SctpHost(ns);
    const r = ns.registerIpProtocol(IPPROTO_SCTP, (skb, dev, info) => host.receive(skb, dev, info));
    if (!r.ok) return err(`${ns.name}: ${r.error.reason}`);
    // The quoted packet's source port is the local end it concerns.
    IcmpMux.of(ns).onError(IPPROTO_SCTP, (e) => host.bindings.get(e.srcPort)?.icmpError?.(e));
    hosts.set(ns, host);
    return ok(host);
  }

  bind(port: number, binding: SctpBinding): Result<number, string> {
    if (!Number.isInteger(port) || port < 1 || port > 65535) return err(`sctp port ${port} not in 1..65535`);
    if (this.bindings.has(port)) return err(`sctp port ${port}: Address already in use`);
    this.bindings.set(port, binding);
    return ok(port);
  }

  /** Binds the next free port of Linux's ephemeral range (ip_local_port_range 32768-60999). */
  bindEphemeral(binding: SctpBinding): Result<number, string> {
    for (let n = 0; n <= EPHEMERAL_LAST - EPHEMERAL_FIRST; n++) {
      const port = this.nextEphemeral;
      this.nextEphemeral = port === EPHEMERAL_LAST ? EPHEMERAL_FIRST : port + 1;
      if (!this.bindings.has(port)) return this.bind(port, binding);
    }
    return err("sctp: no free ephemeral port");
  }

  unbind(port: number): void {
    this.bindings.delete(port);
  }

  /** Sends one SCTP packet from src (0: the route chooses) to dst. */
  send(src: number, dst: number, srcPort: number, dstPort: number, verificationTag: number, chunks: readonly SctpChunkRepr[]): Result<void, string> {
    const sctp = buildSctpPacket({ srcPort, dstPort, verificationTag }, chunks);
    if (!sctp.ok) return err(`sctp.${sctp.error.field}: ${sctp.error.reason}`);
    const ip = new Uint8Array(20 + sctp.value.length);
    ip[0] = 0x45;
    write16(ip, 6, 0x4000); // DF: Linux SCTP sockets do path MTU discovery
    ip[8] = this.ns.sysctl.ipDefaultTtl;
    ip[9] = IPPROTO_SCTP;
    write32(ip, 12, src);
    write32(ip, 16, dst);
    ip.set(sctp.value, 20);
    this.ns.outputIp(SkBuff.fromBytes(this.ns.world.ledger.admit(), ip));
    return ok(undefined);
  }

  /** A random non-zero verification tag from the namespace's seeded stream. */
  randomTag(): number {
    let tag = 0;
    while (tag === 0) tag = this.ns.rng.nextU32() >>> 0;
    return tag;
  }

  /** The protocol handler: skb.head at the SCTP common header; owns the packet. */
  private receive(skb: SkBuff, dev: NetDevice, info: SocketInfo): void {
    const b = skb.data;
    const at = skb.head;
    const ipHeaderLen = at - info.ipOffset;
    if (skb.tail - at < SCTP_HEADER_LENGTH) return this.drop(skb, dev, ipHeaderLen, DropReason.INVALID_PACKET, "sctp:short", `sctp.header at byte ${ipHeaderLen}: ${skb.tail - at} bytes`);
    if (!verifySctpChecksum(b, at, skb.tail)) return this.drop(skb, dev, ipHeaderLen, DropReason.BAD_CHECKSUM, "sctp:checksum", `sctp.checksum at byte ${ipHeaderLen + 8}: wrong CRC32c`);
    const chunks = parseSctpChunks(b, at, skb.tail);
    if (!chunks.ok) return this.drop(skb, dev, ipHeaderLen, DropReason.INVALID_PACKET, "sctp:chunk", `${chunks.error.layer}.${chunks.error.field} at byte ${chunks.error.offset - info.ipOffset}: ${chunks.error.reason}`);
    const packet: SctpPacket = { src: info.src, dst: info.dst, srcPort: read16(b, at), dstPort: read16(b, at + 2), verificationTag: read32(b, at + 4), chunks: chunks.value };
    const binding = this.bindings.get(packet.dstPort);
    if (binding === undefined) {
      this.outOfTheBlue(packet);
      return this.drop(skb, dev, ipHeaderLen, DropReason.NOT_LISTENING, "sctp:no-socket", `no SCTP socket on port ${packet.dstPort}`);
    }
    if (this.ns.world.tracer.hops) {
      skb.push(ipHeaderLen);
      this.ns.world.hop(skb, this.ns.site(dev, "socket"), TracePoint.TO_SOCKET, `sctp port ${packet.dstPort}`, false);
      skb.pull(ipHeaderLen);
    }
    this.ns.world.ledger.deliver(DeliveryKind.SOCKET);
    binding.packet(packet);
  }

  /**
   * RFC 4960 8.4, for a packet no endpoint claims: an ABORT, SHUTDOWN COMPLETE, COOKIE ACK or ERROR
   * (a Stale Cookie error among them) is discarded (rules 2, 6, 7); an INIT gets an ABORT whose verification tag is the INIT's Initiate
   * Tag with the T bit clear (rule 3; Linux: sctp_sf_do_5_1B_init -> sctp_sf_tabort_8_4_8, and
   * sctp_make_abort leaves T clear for an INIT); anything else an ABORT reflecting the packet's tag with
   * the T bit set (rule 8; a SHUTDOWN ACK, which rule 5 answers with SHUTDOWN COMPLETE, is not modelled).
   */
  private outOfTheBlue(p: SctpPacket): void {
    const first = p.chunks[0];
    if (first === undefined) return;
    if (first.kind === "abort" || first.kind === "cookie-ack") return;
    if (first.kind === "other" && (first.type === SctpChunkType.SHUTDOWN_COMPLETE || first.type === SctpChunkType.ERROR)) return;
    const init = first.kind === "init" ? first : null;
    this.ootbAborts++;
    this.send(p.dst, p.src, p.dstPort, p.srcPort, init !== null ? init.initiateTag : p.verificationTag, [{ kind: "abort", tBit: init === null, causes: new Uint8Array(0) }]);
  }

  private drop(skb: SkBuff, dev: NetDevice, ipHeaderLen: number, reason: number, site: string, why: string): void {
    skb.push(ipHeaderLen);
    this.ns.dropPacket(skb, dev, "local-in", reason, `workloads/${site}`, why);
  }
}

/** A listening SCTP socket on one port (`socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP)`, bind, listen). */
export class SctpEndpoint {
  /** INITs answered with INIT ACK. */
  initsAnswered = 0;
  /** Associations established (valid COOKIE ECHO answered with COOKIE ACK). */
  established = 0;
  private host: SctpHost | null = null;
  private secret = 0;

  constructor(
    readonly ns: NetNamespace,
    readonly port: number,
  ) {}

  start(): Result<void, string> {
    if (this.host !== null) return err(`sctp port ${this.port}: already started`);
    const host = SctpHost.of(this.ns);
    if (!host.ok) return host;
    const bound = host.value.bind(this.port, { packet: (p) => this.receive(p) });
    if (!bound.ok) return err(`${this.ns.name}: ${bound.error}`);
    this.host = host.value;
    this.secret = host.value.randomTag();
    return ok(undefined);
  }

  stop(): void {
    this.host?.unbind(this.port);
    this.host = null;
  }

  private receive(p: SctpPacket): void {
    const host = this.host;
    const first = p.chunks[0];
    if (host === null || first === undefined) return;
    if (first.kind === "init") {
      // RFC 4960 5.1 B: answer with INIT ACK to the INIT's Initiate Tag, carrying a State Cookie.
      const localTag = host.randomTag();
      const cookie = this.cookie(p.src, p.srcPort, first.initiateTag, localTag);
      this.initsAnswered++;
      host.send(p.dst, p.src, this.port, p.srcPort, first.initiateTag, [
        {
          kind: "init-ack",
          initiateTag: localTag,
          aRwnd: SCTP_DEFAULTS.aRwnd,
          outboundStreams: Math.min(SCTP_DEFAULTS.outboundStreams, first.inboundStreams),
          inboundStreams: SCTP_DEFAULTS.inboundStreams,
          initialTsn: localTag,
          params: sctpParam(SctpParamType.STATE_COOKIE, cookie),
        },
      ]);
      return;
    }
    if (first.kind === "cookie-echo") {
      // RFC 4960 5.1 D: a cookie this endpoint made (tags and peer in it, MAC matching) gets COOKIE ACK.
      const c = first.cookie;
      if (c.length !== COOKIE_LENGTH) return;
      const peerTag = read32(c, 0);
      const localTag = read32(c, 4);
      if (p.verificationTag !== localTag || !sameBytes(c, this.cookie(p.src, p.srcPort, peerTag, localTag))) return;
      this.established++;
      host.send(p.dst, p.src, this.port, p.srcPort, peerTag, [{ kind: "cookie-ack" }]);
    }
  }

  /** State Cookie: peer tag, local tag, peer address and port, and a keyed check over them. */
  private cookie(peer: number, peerPort: number, peerTag: number, localTag: number): Uint8Array {
    const c = new Uint8Array(COOKIE_LENGTH);
    write32(c, 0, peerTag);
    write32(c, 4, localTag);
    write32(c, 8, peer);
    write16(c, 12, peerPort);
    let h = this.secret ^ 0x811c9dc5;
    for (let i = 0; i < 14; i++) h = Math.imul(h ^ c[i]!, 0x01000193) >>> 0;
    write32(c, 16, h);
    return c;
  }
}

/** The State Cookie parameter of an INIT ACK's parameters, or null. */
export function stateCookieOf(params: Uint8Array): Uint8Array | null {
  return findSctpParam(params, SctpParamType.STATE_COOKIE);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
