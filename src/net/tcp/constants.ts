// Linux TCP constants (include/net/tcp.h) the model follows, in nanoseconds where they are times.

export const NS_PER_MS = 1_000_000;
export const NS_PER_SEC = 1_000_000_000;

/** TCP_RTO_MIN (200 ms) and TCP_RTO_MAX (120 s, net.ipv4.tcp_rto_max_ms). */
export const TCP_RTO_MIN_NS = 200 * NS_PER_MS;
export const TCP_RTO_MAX_NS = 120 * NS_PER_SEC;
/** TCP_TIMEOUT_INIT: the first SYN / SYN-ACK retransmission timeout (RFC 6298 2.1). */
export const TCP_TIMEOUT_INIT_NS = NS_PER_SEC;
/** TCP_ATO_MIN / TCP_DELACK_MIN (40 ms at HZ >= 100) and TCP_DELACK_MAX (200 ms). */
export const TCP_ATO_MIN_NS = 40 * NS_PER_MS;
export const TCP_DELACK_MAX_NS = 200 * NS_PER_MS;
/** TCP_TIMEWAIT_LEN. */
export const TCP_TIMEWAIT_NS = 60 * NS_PER_SEC;
/** TCP_MAX_QUICKACKS: segments acknowledged at once at the start of a connection. */
export const TCP_MAX_QUICKACKS = 16;
/** TCP_MSS_DEFAULT: the peer's MSS when its SYN carries no MSS option (RFC 9293 3.7.1). */
export const TCP_MSS_DEFAULT = 536;
export const TCP_MAX_WSCALE = 14;
/** Largest GSO/TSO super-packet (gso_max_size). */
export const GSO_MAX_BYTES = 65536;
/**
 * MAX_TCP_HEADER on an x86-64 distribution kernel (Ubuntu's 5.15 generic, which the published benchmark
 * ran): L1_CACHE_ALIGN(128 + MAX_HEADER), MAX_HEADER = LL_MAX_HEADER 128 + 48 for tunnels.
 * sk_gso_max_size is gso_max_size minus this minus 1, which leaves room for encapsulation headers
 * under the 64 KB IP length.
 */
export const MAX_TCP_HEADER = 320;
/** Duplicate ACKs (or SACKed segments above a hole) that declare it lost (tcp_reordering). */
export const TCP_DUPTHRESH = 3;
/** MAX_TCP_WINDOW of an unscaled window field. */
export const U16_MAX = 0xffff;
/** TCPOLEN_TSTAMP_ALIGNED: NOP NOP + the 10-byte timestamps option. */
export const TS_ALIGNED = 12;
export const TCP_HEADER = 20;
export const IPV4_HEADER = 20;
/** tcp_v4_send_synack's SYN-ACK and tcp_v4_send_reset use IP ID 0 (no socket id). */
export const IP_ID_NONE = 0;
/** SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) on x86-64 (17 page fragments). */
export const SKB_SHINFO_ALIGNED = 320;
/** SKB_DATA_ALIGN(sizeof(struct sk_buff)) on x86-64. */
export const SKB_STRUCT_ALIGNED = 256;

/**
 * tcp_sndbuf_expand's per_mss: the memory Linux charges the send buffer per segment, assuming the
 * worst case of one kmalloc'ed skb head (a power of two) per segment. `mss` is max(mss_clamp,
 * mss_cache): 4,352 bytes at MTU 1500 and 1450, 16,640 at MTU 9000.
 */
export function sndbufPerMss(mss: number): number {
  const head = mss + MAX_TCP_HEADER + SKB_SHINFO_ALIGNED;
  // roundup_pow_of_two (head is at least 641 and an MSS is below 2^16, so the shift stays in range).
  return (1 << (32 - Math.clz32(head - 1))) + SKB_STRUCT_ALIGNED;
}

/**
 * Zero held as a double: -0, which compares, adds, prints and serializes as 0 (only a division by it
 * differs, and no field that starts with it is divided by before it is set). Number fields that come
 * to hold values past V8's small-integer range (uint32 sequence numbers, ns times, event ids) start
 * with it, so their double representation holds from the object's creation. A field that starts as
 * a small integer changes representation at the first large value, which replaces the class's hidden
 * class and deoptimizes every function compiled against it: most of the TCP hot path, twice a run.
 */
export const F64_ZERO = -0;
