// DatapathCtx: what a program sees for one packet (skb, parsed headers, the node's maps and config,
// `now` and a seeded random value from the caller), the per-packet state the library functions share,
// the verdict, and the one trace or drop event a run emits through `emit`. One ctx per attachment, reused.
import { ParsedHeaders } from "../src/wire/headers.js";
import type { SkBuff } from "../src/skb/skbuff.js";
import type { DatapathConfig } from "./lib/config.js";
import type { DatapathMaps } from "./lib/maps.js";

/** A program's outcome: continue on the normal path, drop, or redirect to another interface. */
export const Verdict = { PASS: 0, DROP: 1, REDIRECT: 2 } as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];

/** A program bound to a hook: a name for records and a run function. */
export interface DatapathProgram {
  readonly name: string;
  run(ctx: DatapathCtx): Verdict;
}

/** Translations applied to the packet during a run (bits of DatapathEvent.xlate). */
export const Xlate = {
  DNAT: 1,
  SNAT: 2,
  REV_DNAT: 4,
  REV_SNAT: 8,
  ENCAP: 16,
  DECAP: 32,
  /** The packet was turned into an ICMP error sent back to its source. */
  REJECT: 64,
} as const;

export const EventKind = { TRACE: 1, DROP: 2 } as const;

/**
 * What the control plane needs to explain a policy drop: the endpoint and direction whose policy map
 * said no, the peer (address and the identity the ipcache gave it), protocol, port, and the ruleRef of
 * the entry that decided (0 when no entry matched; a DENY entry's ruleRef otherwise).
 */
export class PolicyDropRef {
  endpointId = 0;
  endpointIp = 0;
  /** maps/policy Direction: INGRESS 0, EGRESS 1. */
  direction = 0;
  peerIp = 0;
  peerIdentity = 0;
  proto = 0;
  port = 0;
  /** maps/policy PolicyVerdict: MISS or DENY. */
  verdict = 0;
  ruleRef = 0;
}

/**
 * The event a run emits (at most one per run): a trace (kind TRACE, point = TracePoint of the outcome)
 * or a drop (kind DROP, reason, site). The object is reused: sinks copy what they keep.
 */
export class DatapathEvent {
  kind = 0;
  point = -1;
  reason = 0;
  site = "";
  srcIdentity = 0;
  dstIdentity = 0;
  proto = 0;
  /** Tuple as the packet arrived at the hook. */
  origSrc = 0;
  origDst = 0;
  origSrcPort = 0;
  origDstPort = 0;
  /** Tuple after the program's translations (inner packet when encapsulated). */
  src = 0;
  dst = 0;
  srcPort = 0;
  dstPort = 0;
  xlate = 0;
  /** Outer destination when encapsulated, outer source when decapsulated; 0 otherwise. */
  tunnelPeer = 0;
  /** Set on policy drops. */
  policy: PolicyDropRef | null = null;
  /** Extra words for a drop (e.g. which header field failed to parse); "" when none. */
  detail = "";
}

export type EventSink = (event: DatapathEvent) => void;

const noSink: EventSink = () => {};

export class DatapathCtx {
  readonly hdr = new ParsedHeaders();
  readonly event = new DatapathEvent();
  readonly policyRef = new PolicyDropRef();
  /** Receives the run's trace or drop event. */
  emit: EventSink = noSink;
  /** When false, trace events are not emitted (drops always are). */
  traceEnabled = false;

  // ---- set by the caller for each packet (begin)
  skb!: SkBuff;
  /** Interface the program runs on. */
  ifindex = 0;
  /** True when frames on this interface start with an Ethernet header. */
  l2 = true;
  /** MAC of the interface the program runs on. */
  devMac = 0;
  /** Simulated time, ns. */
  now = 0;
  /** Seeded u32 supplied by the caller; library code draws from it with prandom(). */
  random = 0;
  private draws = 0;

  // ---- verdict
  verdict: Verdict = Verdict.PASS;
  dropReason = 0;
  /** Literal id of the code location deciding a drop; inner functions set it with the reason they return. */
  site = "";
  redirectIfindex = 0;
  redirectIngress = false;
  /** Output interface chosen by a FIB lookup. */
  fibIfindex = 0;

  // ---- packet tuple (current bytes), conntrack tuple (post-DNAT, pre-SNAT), tuple at arrival
  proto = 0;
  saddr = 0;
  daddr = 0;
  sport = 0;
  dport = 0;
  ctSaddr = 0;
  ctDaddr = 0;
  ctSport = 0;
  ctDport = 0;
  origSaddr = 0;
  origDaddr = 0;
  origSport = 0;
  origDport = 0;
  xlate = 0;

  // ---- identities, conntrack and load-balancing state
  srcIdentity = 0;
  dstIdentity = 0;
  ctStatus = 0;
  ctSlot = -1;
  ctFlags = 0;
  revNatIndex = 0;
  backendId = 0;
  /** The flow is NodePort traffic (CT entries get CtFlag.NODE_PORT). */
  nodePort = false;
  /** Node to send replies of this flow back to through the tunnel (NodePort keeping the client address). */
  tunnelReturn = 0;
  tunnelPeer = 0;
  hasPolicyRef = false;
  detail = "";

  /** config.routerMac as its high 16 / low 32 bits. */
  readonly routerMacHi: number;
  readonly routerMacLo: number;

  constructor(
    readonly maps: DatapathMaps,
    readonly config: DatapathConfig,
  ) {
    this.routerMacHi = Math.floor(config.routerMac / 0x100000000);
    this.routerMacLo = config.routerMac >>> 0;
  }

  /** Starts a run for one packet. */
  begin(skb: SkBuff, ifindex: number, l2: boolean, devMac: number, now: number, random: number): void {
    this.skb = skb;
    this.ifindex = ifindex;
    this.l2 = l2;
    this.devMac = devMac;
    this.now = now;
    this.random = random >>> 0;
    this.draws = 0;
    this.verdict = Verdict.PASS;
    this.dropReason = 0;
    this.site = "";
    this.redirectIfindex = 0;
    this.redirectIngress = false;
    this.fibIfindex = 0;
    this.proto = 0;
    this.saddr = this.daddr = this.sport = this.dport = 0;
    this.ctSaddr = this.ctDaddr = this.ctSport = this.ctDport = 0;
    this.origSaddr = this.origDaddr = this.origSport = this.origDport = 0;
    this.xlate = 0;
    this.srcIdentity = 0;
    this.dstIdentity = 0;
    this.ctStatus = 0;
    this.ctSlot = -1;
    this.ctFlags = 0;
    this.revNatIndex = 0;
    this.backendId = 0;
    this.nodePort = false;
    this.tunnelReturn = 0;
    this.tunnelPeer = 0;
    this.hasPolicyRef = false;
    this.detail = "";
  }

  /** The next pseudo-random u32 of this run, derived from `random` (deterministic, no Math.random). */
  prandom(): number {
    let h = (this.random + Math.imul(++this.draws, 0x9e3779b9)) | 0;
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h >>> 0;
  }

  /** Ends the run: continue on the normal path. */
  pass(): Verdict {
    this.verdict = Verdict.PASS;
    return Verdict.PASS;
  }

  /** Ends the run: hand the packet to interface `ifindex`, received there (ingress) or sent (egress). */
  redirect(ifindex: number, ingress: boolean): Verdict {
    this.verdict = Verdict.REDIRECT;
    this.redirectIfindex = ifindex;
    this.redirectIngress = ingress;
    return Verdict.REDIRECT;
  }
}
