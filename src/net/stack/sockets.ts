// The namespace's sockets as the model sees them: handlers bound to UDP ports, TCP ports and IP
// protocols, plus one ICMP listener. SOCKET handlers are workloads: the stack records the delivery and
// calls them from a 0-delay event. TUNNEL handlers (VXLAN, IPIP decapsulation) run synchronously and
// own the packet's fate (they must deliver, drop or forward it), as IP protocol handlers do; the
// SocketInfo of both is valid during the call only (the namespace reuses it for the next delivery).

import type { SkBuff } from "../../skb/skbuff.js";
import type { NetDevice } from "../device.js";

/** What a handler learns about the packet; skb.head is at the transport header (UDP/TCP/ICMP/inner IP). */
export interface SocketInfo {
  readonly src: number;
  readonly dst: number;
  readonly srcPort: number;
  readonly dstPort: number;
  readonly dev: NetDevice;
  /** IP protocol number. */
  readonly proto: number;
  /** Offset of the IPv4 header in skb.data (its TOS, TTL and options stay readable). */
  readonly ipOffset: number;
}

export type SocketHandler = (skb: SkBuff, info: SocketInfo) => void;
export type ProtocolHandler = (skb: SkBuff, dev: NetDevice, info: SocketInfo) => void;

export const SocketMode = { SOCKET: "socket", TUNNEL: "tunnel" } as const;
export type SocketMode = (typeof SocketMode)[keyof typeof SocketMode];

export interface Binding {
  readonly handler: SocketHandler;
  readonly mode: SocketMode;
}

export class SocketTable {
  readonly udp = new Map<number, Binding>();
  readonly tcp = new Map<number, Binding>();
  readonly protocols = new Map<number, ProtocolHandler>();
  /** Receives locally delivered ICMP messages the stack does not answer itself (echo replies, errors). */
  icmp: SocketHandler | null = null;
}
