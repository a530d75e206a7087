// Trace and drop records: what a hook saw and what it did, with enough context to answer
// "why was this packet dropped" hop by hop.

import type { Tuple } from "../skb/tuple.js";

export type { Tuple };

export interface HopRecord {
  readonly time: number;
  readonly seq: number;
  readonly packetId: number;
  readonly node: string;
  readonly device: string;
  /** Where in the device or stack: "tc-ingress", "PREROUTING", "bridge", "xmit", ... */
  readonly hook: string;
  /** Trace point code (datapath/reasons TRACE_POINTS), or -1. */
  readonly point: number;
  readonly tuple: Tuple;
  /** Outer tuple when the packet is encapsulated at this point. */
  readonly outer?: Tuple;
  /** What happened here in words: "DNAT 10.103.36.143:80 -> 10.224.41.130:80", "encap vxlan vni 1". */
  readonly note: string;
}

export interface DropRecord {
  readonly time: number;
  readonly seq: number;
  readonly packetId: number;
  readonly node: string;
  readonly device: string;
  readonly hook: string;
  /** Drop reason code (datapath/reasons DROP_REASONS). */
  readonly reason: number;
  /** Literal id of the code location that decided the drop, e.g. "net/stack/forward:ttl". */
  readonly site: string;
  readonly srcIdentity: number;
  readonly dstIdentity: number;
  /** Tuple before any NAT (equal to `after` when none happened). */
  readonly before: Tuple;
  readonly after: Tuple;
  /** For policy drops: the explanation (which policies isolate the endpoint, why none allowed). */
  readonly explanation?: string;
}
