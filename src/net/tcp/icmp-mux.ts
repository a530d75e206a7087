// Shares a namespace's one ICMP listener (NetNamespace.listenIcmp) between the transport code that
// needs ICMP: errors quoting a TCP or UDP packet go to that protocol's handler (connection refused,
// host unreachable, fragmentation needed), echo replies go to the ping registered for their ID.

import type { SkBuff } from "../../skb/skbuff.js";
import { read16, read32 } from "../../wire/bytes.js";
import type { NetNamespace, SocketInfo } from "../stack/index.js";

export const IcmpKind = { ECHO_REPLY: 0, DEST_UNREACH: 3, SOURCE_QUENCH: 4, REDIRECT: 5, TIME_EXCEEDED: 11, PARAMETER_PROBLEM: 12 } as const;

/** An ICMP error and the start of the packet it quotes. */
export interface IcmpErrorInfo {
  readonly type: number;
  readonly code: number;
  /** Who sent the error. */
  readonly from: number;
  /** Next-hop MTU of "fragmentation needed" (type 3 code 4), else 0. */
  readonly mtu: number;
  readonly proto: number;
  /** The quoted packet's addresses and ports (our outgoing packet). */
  readonly src: number;
  readonly dst: number;
  readonly srcPort: number;
  readonly dstPort: number;
  /** The quoted TCP sequence number (0 for other protocols). */
  readonly seq: number;
}

export type IcmpErrorHandler = (error: IcmpErrorInfo) => void;
/** An echo reply: its sequence number, the sender, its TTL, and the echoed data (view valid during the call). */
export type EchoReplyHandler = (seq: number, from: number, ttl: number, data: Uint8Array, info: SocketInfo) => void;
/** Any other ICMP message for a registered echo ID's owner (errors quoting its echo requests). */
export type EchoErrorHandler = (seq: number, error: IcmpErrorInfo) => void;

const muxes = new WeakMap<NetNamespace, IcmpMux>();

export class IcmpMux {
  private readonly errorHandlers = new Map<number, IcmpErrorHandler>();
  private readonly echo = new Map<number, { reply: EchoReplyHandler; error: EchoErrorHandler | null }>();

  private constructor(ns: NetNamespace) {
    ns.listenIcmp((skb, info) => this.receive(skb, info));
  }

  /** The namespace's multiplexer (installed as its ICMP listener on first use). */
  static of(ns: NetNamespace): IcmpMux {
    let mux = muxes.get(ns);
    if (mux === undefined) {
      mux = new IcmpMux(ns);
      muxes.set(ns, mux);
    }
    return mux;
  }

  /** Errors quoting IP protocol `proto` (6 TCP, 17 UDP, 132 SCTP). */
  onError(proto: number, handler: IcmpErrorHandler): void {
    this.errorHandlers.set(proto, handler);
  }

  /** Replies (and errors) for echo requests with this identifier; null unregisters. */
  onEcho(id: number, reply: EchoReplyHandler | null, error: EchoErrorHandler | null = null): void {
    if (reply === null) this.echo.delete(id);
    else this.echo.set(id, { reply, error });
  }

  echoIdInUse(id: number): boolean {
    return this.echo.has(id);
  }

  private receive(skb: SkBuff, info: SocketInfo): void {
    const b = skb.data;
    const at = skb.head;
    const len = skb.tail - at;
    if (len < 8) return;
    const type = b[at]!;
    if (type === IcmpKind.ECHO_REPLY) {
      const owner = this.echo.get(read16(b, at + 4));
      owner?.reply(read16(b, at + 6), info.src, b[info.ipOffset + 8]!, b.subarray(at + 8, skb.tail), info);
      return;
    }
    if (type !== IcmpKind.DEST_UNREACH && type !== IcmpKind.TIME_EXCEEDED && type !== IcmpKind.PARAMETER_PROBLEM) return;
    const q = at + 8;
    if (len < 8 + 20 + 8) return;
    const ihl = (b[q]! & 0x0f) * 4;
    if (ihl < 20 || len < 8 + ihl + 8) return;
    const proto = b[q + 9]!;
    const l4 = q + ihl;
    // TCP, UDP and SCTP all start with the source and destination ports.
    const isPorted = proto === 6 || proto === 17 || proto === 132;
    const error: IcmpErrorInfo = {
      type,
      code: b[at + 1]!,
      from: info.src,
      mtu: type === IcmpKind.DEST_UNREACH && b[at + 1] === 4 ? read16(b, at + 6) : 0,
      proto,
      src: read32(b, q + 12),
      dst: read32(b, q + 16),
      srcPort: isPorted ? read16(b, l4) : 0,
      dstPort: isPorted ? read16(b, l4 + 2) : 0,
      seq: proto === 6 ? read32(b, l4 + 4) : 0,
    };
    if (proto === 1) {
      if (b[l4] === 8) this.echo.get(read16(b, l4 + 4))?.error?.(read16(b, l4 + 6), error);
      return;
    }
    this.errorHandlers.get(proto)?.(error);
  }
}
