// SkBuff: one packet's bytes, kept in a buffer with headroom so encapsulation can prepend
// headers in place, plus the metadata the model carries with the packet between devices
// (arrival interface, mark, security identity, conntrack state, tuple before NAT, and the GSO
// description of a super-packet: segment size, segment count, encapsulation type).

export const DEFAULT_HEADROOM = 128;

/** NAT bits recorded on a packet once a translation rewrote it. */
export const NatApplied = { NONE: 0, DNAT: 1, SNAT: 2 } as const;

/**
 * skb_shinfo(skb)->gso_type bits (SKB_GSO_*): what a super-packet carries, so segmentation knows which
 * headers to repeat and fix per segment.
 */
export const GsoType = {
  TCPV4: 1,
  /** Inside VXLAN/UDP without an outer UDP checksum (SKB_GSO_UDP_TUNNEL). */
  UDP_TUNNEL: 2,
  /** Inside VXLAN/UDP with an outer UDP checksum per segment (SKB_GSO_UDP_TUNNEL_CSUM). */
  UDP_TUNNEL_CSUM: 4,
  /** Inside an outer IPv4 header (IPIP, SKB_GSO_IPXIP4). */
  IPXIP4: 8,
} as const;
/** The encapsulation bits iptunnel_pull_offloads clears on decapsulation. */
export const GSO_ENCAP_MASK = GsoType.UDP_TUNNEL | GsoType.UDP_TUNNEL_CSUM | GsoType.IPXIP4;

export class SkBuff {
  /** Backing store; the packet is data[head, tail). */
  data: Uint8Array;
  head: number;
  tail: number;
  /** Ledger id: unique per packet that entered the model (clones get their own). */
  readonly id: number;
  /** Interface index the packet arrived on in the current namespace (0 = locally generated). */
  ifindex = 0;
  /** Packet mark (iptables/ebpf style, e.g. kube-proxy's 0x4000 masquerade mark). */
  mark = 0;
  /** Source security identity, when a program resolved it. */
  srcIdentity = 0;
  /** Conntrack state bits (see net/netfilter conntrack). 0 = untracked. */
  ctState = 0;
  /** Conntrack entry index the packet belongs to, -1 when none. */
  ctEntry = -1;
  /** Bitmask of NatApplied. */
  natApplied = 0;
  /** 5-tuple before the first NAT rewrite (valid when natApplied != 0). */
  origSrc = 0;
  origDst = 0;
  origSrcPort = 0;
  origDstPort = 0;
  /** Tunnel key (VNI) the packet arrived with, or 0. */
  tunnelId = 0;
  /** Outer source address of the tunnel packet this one was decapsulated from, or 0. */
  tunnelSrc = 0;
  /** Gateway chosen by the route lookup, for L3 tunnel devices (tunl0) that need it as the remote end; 0 = on-link. */
  nextHop = 0;
  /**
   * Set when br_netfilter already ran iptables PREROUTING on this frame in a bridge; the namespace's
   * ip_rcv then skips its own PREROUTING (the kernel's ip_sabotage_in). Cleared on any transmit.
   */
  brNfPrerouted = false;
  /** Number of devices/hops crossed, to bound loops in a misconfigured model. */
  hops = 0;
  /**
   * GSO: payload bytes of each segment (the MSS) when this skb is a super-packet standing for
   * gsoSegs wire packets; 0 = an ordinary packet. A super-packet's L4 checksums are not computed
   * (CHECKSUM_PARTIAL on the sender, CHECKSUM_UNNECESSARY after GRO): segmentation fills them.
   */
  gsoSize = 0;
  gsoSegs = 0;
  /** Bitmask of GsoType. */
  gsoType = 0;
  /**
   * CHECKSUM_UNNECESSARY for one L4 header: the buffer, offset and length of the TCP/UDP segment whose
   * checksum was last verified good (l4-checksum.ts). Every later writer of those bytes keeps the checksum
   * right (NAT rewrites it incrementally), so later checks of the same header in this skb can skip
   * the sum, as the kernel's do once ip_summed says the checksum is known good.
   */
  l4VerifiedData: Uint8Array | null = null;
  l4VerifiedAt = -1;
  l4VerifiedLen = 0;
  /**
   * The header verified before that one, still good: a tunnelled packet's outer UDP check comes
   * between the inner TCP checks of the sending and the receiving node, and both stay known.
   */
  l4EarlierData: Uint8Array | null = null;
  l4EarlierAt = -1;
  l4EarlierLen = 0;
  /**
   * The same for the IPv4 header checksum (ip-header-checksum.ts): the buffer and offset of the header
   * last verified good or summed by the output path. Every later writer of a header keeps its checksum
   * right (TTL decrement, NAT, ECN marking patch it), so the next namespace need not sum it again.
   */
  ipVerifiedData: Uint8Array | null = null;
  ipVerifiedAt = -1;
  /** The header known good before that one (a tunnelled packet's inner header, once the outer one is). */
  ipEarlierData: Uint8Array | null = null;
  ipEarlierAt = -1;

  constructor(id: number, data: Uint8Array, head: number, tail: number) {
    this.id = id;
    this.data = data;
    this.head = head;
    this.tail = tail;
  }

  /** Builds a packet from frame bytes, copying them behind `headroom` free bytes. */
  static fromBytes(id: number, bytes: Uint8Array, headroom = DEFAULT_HEADROOM): SkBuff {
    const data = new Uint8Array(headroom + bytes.length);
    data.set(bytes, headroom);
    return new SkBuff(id, data, headroom, headroom + bytes.length);
  }

  get length(): number {
    return this.tail - this.head;
  }

  /** Makes room for n more bytes at the front (encapsulation); returns the new head offset. */
  push(n: number): number {
    if (this.head < n) {
      const grow = Math.max(DEFAULT_HEADROOM, n);
      const data = new Uint8Array(this.data.length + grow);
      data.set(this.data.subarray(this.head, this.tail), this.head + grow);
      this.data = data;
      this.head += grow;
      this.tail += grow;
    }
    this.head -= n;
    return this.head;
  }

  /** Removes n bytes from the front (decapsulation, stripping L2). */
  pull(n: number): void {
    if (n > this.length) throw new RangeError(`pull(${n}) beyond packet length ${this.length}`);
    this.head += n;
  }

  /** Cuts the packet to n bytes. */
  trim(n: number): void {
    if (n < this.length) this.tail = this.head + n;
  }

  /** The packet bytes as a view (no copy). */
  bytes(): Uint8Array {
    return this.data.subarray(this.head, this.tail);
  }

  /** A deep copy with a new ledger id (bridge flooding, broadcast delivery, captures). */
  clone(id: number): SkBuff {
    const copy = new SkBuff(id, this.data.slice(), this.head, this.tail);
    copy.copyPacketMeta(this);
    copy.brNfPrerouted = this.brNfPrerouted;
    copy.gsoSize = this.gsoSize;
    copy.gsoSegs = this.gsoSegs;
    copy.gsoType = this.gsoType;
    return copy;
  }

  /**
   * Takes the model's per-packet metadata from the packet this one was derived from (a fragment, a
   * GSO segment, a reassembled datagram): everything but the GSO description and br_netfilter's mark.
   */
  copyPacketMeta(from: SkBuff): void {
    this.ifindex = from.ifindex;
    this.mark = from.mark;
    this.srcIdentity = from.srcIdentity;
    this.ctState = from.ctState;
    this.ctEntry = from.ctEntry;
    this.natApplied = from.natApplied;
    this.origSrc = from.origSrc;
    this.origDst = from.origDst;
    this.origSrcPort = from.origSrcPort;
    this.origDstPort = from.origDstPort;
    this.tunnelId = from.tunnelId;
    this.tunnelSrc = from.tunnelSrc;
    this.nextHop = from.nextHop;
    this.hops = from.hops;
  }
}
