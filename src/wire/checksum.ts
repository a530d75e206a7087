// Internet checksum (RFC 1071) over byte ranges, IPv4/IPv6 pseudo-header sums, IPv4 header and
// L4 (UDP, TCP, ICMP, ICMPv6) fill/verify, and RFC 1624 incremental updates for NAT rewrites.
// Sums are unfolded accumulators (plain numbers, exact up to 2^53); `foldSum` reduces them to 16 bits.
import { read16, write16 } from "./bytes.js";

export const IPPROTO_ICMP = 1;
export const IPPROTO_TCP = 6;
export const IPPROTO_UDP = 17;
export const IPPROTO_ICMPV6 = 58;

/**
 * Adds the 16-bit big-endian words of bytes[start, end) to acc (an odd last byte is padded with zero).
 * The high and low bytes are summed apart, eight bytes a step, and joined once at the end: the same
 * exact sum as word by word (RFC 1071 section 2(B): the order of additions does not matter), in about
 * two thirds of the time over a 64 KB super-packet.
 */
export function onesSum(bytes: Uint8Array, start: number, end: number, acc = 0): number {
  let i = start;
  let hi = 0;
  let lo = 0;
  const stop8 = end - 7;
  for (; i < stop8; i += 8) {
    hi += bytes[i]! + bytes[i + 2]! + bytes[i + 4]! + bytes[i + 6]!;
    lo += bytes[i + 1]! + bytes[i + 3]! + bytes[i + 5]! + bytes[i + 7]!;
  }
  const last = end - 1;
  for (; i < last; i += 2) {
    hi += bytes[i]!;
    lo += bytes[i + 1]!;
  }
  if (i < end) hi += bytes[i]!;
  return acc + hi * 256 + lo;
}

/** Ranges at least this long are summed a 32-bit word at a time (congruentSum). */
const WORD_SUM_MIN = 128;
/** Longest range congruentSum takes (the word total, below 2^20 words of 2^32, stays exact). */
const WORD_SUM_MAX = 1 << 22;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * A sum congruent to onesSum(bytes, start, end, acc) modulo 0xffff, and zero exactly when that is
 * zero: all that foldSum needs (it maps every positive accumulator to the one value in [1, 0xffff] of
 * its class), so the folded checksum is the same. The 4-aligned middle is read as little-endian
 * 32-bit words W = b0 + b1*2^8 + b2*2^16 + b3*2^24 = b0 + b1*2^8 + b2 + b3*2^8 (mod 0xffff, as
 * 2^16 = 1): the byte-swapped big-endian words, which 256 * W swaps back when b0 sits at an even
 * distance from start (RFC 1071 section 2(B)). About twice as fast as onesSum over 64 KB.
 */
function congruentSum(bytes: Uint8Array, base: number, start: number, end: number, acc: number, wordView: Uint32Array | null): number {
  const n = end - start;
  if (n < WORD_SUM_MIN || n > WORD_SUM_MAX || !LITTLE_ENDIAN) return onesSum(bytes, start, end, acc);
  const first = start + ((4 - ((base + start) & 3)) & 3);
  const words = (end - first) >>> 2;
  const stop = first + words * 4;
  // The buffer's own word view when it has one (no view allocated per sum), else a view of the range.
  const view = wordView ?? new Uint32Array(bytes.buffer, base + first, words);
  const from = wordView === null ? 0 : (base + first) >>> 2;
  const to = from + words;
  let w = 0;
  for (let i = from; i < to; i++) w += view[i]!;
  // The head bytes [start, first) and tail bytes [stop, end) keep their parity relative to start.
  let s = onesSum(bytes, start, first, acc);
  s = ((stop - start) & 1) === 0 ? onesSum(bytes, stop, end, s) : s + onesSum(bytes, stop, end) * 256;
  // Reduced (never to 0 unless it is 0) so that 256 * w stays exact.
  if (w !== 0) w = w % 0xffff || 0xffff;
  return s + (((first - start) & 1) === 0 ? w * 256 : w);
}

/**
 * Payload sums remembered on packet buffers. A packet's checksums are computed and verified several
 * times on its way (sender, tunnel, conntrack, receiver) over the same payload bytes; only headers
 * change between. A buffer whose owner opted in (resetSumMemo, called by the packet buffer pool each
 * time it hands the buffer out) keeps the sum of its last long range past a MEMO_PREFIX-byte lead,
 * which is always summed afresh: headers, being at most 60 bytes per layer (TCP, IPv4 options) and a
 * few layers deep, lie inside that lead, so the remembered bytes are payload, which nothing rewrites
 * in place while the buffer holds the packet (segmentation, fragmentation and ICMP errors copy into
 * other buffers). A later range with the same end that starts at most MEMO_LEAD_MAX bytes before the
 * remembered start reuses it.
 */
const SUM_MEMO = Symbol("checksum.sumMemo");
interface SumMemo {
  /** Absolute byte offsets in the ArrayBuffer; end -1 = nothing remembered. */
  start: number;
  end: number;
  /** congruentSum of the range with acc 0, reduced into [0, 0xffff] (0 only for all-zero bytes). */
  sum: number;
  /** The whole buffer as 32-bit words, made once: congruentSum reads through it instead of a new view per sum. */
  readonly words: Uint32Array | null;
}
type MemoBuffer = ArrayBufferLike & { [SUM_MEMO]?: SumMemo };
/** Ranges at least this long use the memo. */
const MEMO_MIN = 1024;
/** Bytes at the start of a range summed afresh and left out of what is remembered. */
const MEMO_PREFIX = 256;
/** Longest lead summed afresh before a remembered range. */
const MEMO_LEAD_MAX = 512;

/**
 * The view whose memo was found last, with that memo and the view's byteOffset. A typed array's
 * .buffer and .byteOffset are accessor calls costing tens of nanoseconds here, and a packet's sums
 * and zero notes come in runs on one view. Exact: a view's buffer and offset never change, nor does a
 * buffer's memo object once made (resetSumMemo resets it in place). Views without a memo are not kept.
 */
const recent: { view: Uint8Array | null; memo: SumMemo | null; base: number } = { view: null, memo: null, base: 0 };

/** The memo of the buffer behind bytes (undefined when it has none); recent.base is then bytes.byteOffset. */
function memoOf(bytes: Uint8Array): SumMemo | undefined {
  if (bytes === recent.view) return recent.memo!;
  const m = (bytes.buffer as MemoBuffer)[SUM_MEMO];
  if (m !== undefined) {
    recent.view = bytes;
    recent.memo = m;
    recent.base = bytes.byteOffset;
  }
  return m;
}

/** Forgets the buffer's remembered sum and lets it remember sums from now on (its bytes are about to be rewritten). */
export function resetSumMemo(buffer: ArrayBufferLike): void {
  const b = buffer as MemoBuffer;
  const m = b[SUM_MEMO];
  if (m === undefined) b[SUM_MEMO] = { start: 0, end: -1, sum: 0, words: LITTLE_ENDIAN ? new Uint32Array(buffer, 0, buffer.byteLength >>> 2) : null };
  else m.end = -1;
}

/**
 * Records that bytes[start, end) are zeros, payload nothing rewrites while the buffer holds this
 * packet (the sender just wrote or found them so): their sum, 0, is remembered without reading them.
 */
export function rememberZeroSum(bytes: Uint8Array, start: number, end: number): void {
  const m = memoOf(bytes);
  if (m === undefined) return;
  m.start = recent.base + start;
  m.end = recent.base + end;
  m.sum = 0;
}

/** True when the buffer's remembered sum says bytes[start, end) are all zeros (a remembered sum is 0 only for zeros). */
export function knownZeros(bytes: Uint8Array, start: number, end: number): boolean {
  const m = memoOf(bytes);
  if (m === undefined || m.sum !== 0) return false;
  const base = recent.base;
  return m.end >= 0 && m.start <= base + start && base + end <= m.end;
}

/** congruentSum through the buffer's memo (see SUM_MEMO): the same value class, and zero exactly when it is. */
function memoSum(bytes: Uint8Array, start: number, end: number, acc: number): number {
  const n = end - start;
  if (n < WORD_SUM_MIN) return onesSum(bytes, start, end, acc); // what congruentSum does for it
  const m = memoOf(bytes);
  if (m === undefined) return congruentSum(bytes, bytes.byteOffset, start, end, acc, null);
  const base = recent.base;
  if (n < MEMO_MIN) return congruentSum(bytes, base, start, end, acc, m.words);
  let split = m.start - base;
  if (m.end !== base + end || split < start || split - start > MEMO_LEAD_MAX) {
    split = start + MEMO_PREFIX;
    const rest = congruentSum(bytes, base, split, end, 0, m.words);
    m.start = base + split;
    m.end = base + end;
    m.sum = rest === 0 ? 0 : rest % 0xffff || 0xffff;
  }
  // The remembered range was summed from an even position: swapped (x 256) when it sits at an odd distance.
  return congruentSum(bytes, base, start, split, acc, m.words) + (((split - start) & 1) === 0 ? m.sum : m.sum * 256);
}

/** Folds an accumulator to 16 bits with end-around carry. */
export function foldSum(acc: number): number {
  while (acc > 0xffff) acc = (acc & 0xffff) + Math.floor(acc / 0x10000);
  return acc;
}

/** The internet checksum of bytes[start, end) plus an initial sum (e.g. a pseudo-header). */
export function internetChecksum(bytes: Uint8Array, start: number, end: number, initial = 0): number {
  return ~foldSum(memoSum(bytes, start, end, initial)) & 0xffff;
}

/** True when a range that contains its own checksum field sums to all ones (RFC 1071 verification). */
export function verifyChecksum(bytes: Uint8Array, start: number, end: number, initial = 0): boolean {
  return foldSum(memoSum(bytes, start, end, initial)) === 0xffff;
}

/** The contract's name for verifyChecksum. */
export const verify = verifyChecksum;

export function pseudoHeaderSumV4(src: number, dst: number, protocol: number, length: number): number {
  return (src >>> 16) + (src & 0xffff) + (dst >>> 16) + (dst & 0xffff) + protocol + length;
}

/** IPv6 pseudo-header (RFC 8200 section 8.1); addresses are read from 16-byte ranges. */
export function pseudoHeaderSumV6(
  src: Uint8Array,
  srcOffset: number,
  dst: Uint8Array,
  dstOffset: number,
  nextHeader: number,
  length: number,
): number {
  let acc = onesSum(src, srcOffset, srcOffset + 16);
  acc = onesSum(dst, dstOffset, dstOffset + 16, acc);
  return acc + Math.floor(length / 0x10000) + (length & 0xffff) + nextHeader;
}

/** Byte offset of the checksum field inside an L4 header, or -1 for protocols without one here. */
export function l4ChecksumFieldOffset(protocol: number): number {
  switch (protocol) {
    case IPPROTO_TCP:
      return 16;
    case IPPROTO_UDP:
      return 6;
    case IPPROTO_ICMP:
    case IPPROTO_ICMPV6:
      return 2;
    default:
      return -1;
  }
}

/**
 * onesSum of a 20-byte IPv4 header (no options), word by word: the same exact sum without the
 * general loop, for the header checksums set and verified at every hop.
 */
function headerSum20(b: Uint8Array, o: number): number {
  return (
    ((b[o]! << 8) | b[o + 1]!) + ((b[o + 2]! << 8) | b[o + 3]!) + ((b[o + 4]! << 8) | b[o + 5]!) + ((b[o + 6]! << 8) | b[o + 7]!) +
    ((b[o + 8]! << 8) | b[o + 9]!) + ((b[o + 10]! << 8) | b[o + 11]!) + ((b[o + 12]! << 8) | b[o + 13]!) + ((b[o + 14]! << 8) | b[o + 15]!) +
    ((b[o + 16]! << 8) | b[o + 17]!) + ((b[o + 18]! << 8) | b[o + 19]!)
  );
}

/** Computes and stores the IPv4 header checksum of the header at offset; returns it. */
export function setIpv4HeaderChecksum(bytes: Uint8Array, offset: number, headerLength: number): number {
  write16(bytes, offset + 10, 0);
  const sum =
    headerLength === 20 && offset + 20 <= bytes.length ? ~foldSum(headerSum20(bytes, offset)) & 0xffff : internetChecksum(bytes, offset, offset + headerLength);
  write16(bytes, offset + 10, sum);
  return sum;
}

export function verifyIpv4HeaderChecksum(bytes: Uint8Array, offset: number, headerLength: number): boolean {
  if (headerLength === 20 && offset + 20 <= bytes.length) return foldSum(headerSum20(bytes, offset)) === 0xffff;
  return verifyChecksum(bytes, offset, offset + headerLength);
}

function storeL4Checksum(bytes: Uint8Array, offset: number, length: number, protocol: number, initial: number): number {
  const field = l4ChecksumFieldOffset(protocol);
  if (field < 0) return -1;
  write16(bytes, offset + field, 0);
  let sum = internetChecksum(bytes, offset, offset + length, initial);
  if (protocol === IPPROTO_UDP && sum === 0) sum = 0xffff; // RFC 768: 0 means "no checksum"
  write16(bytes, offset + field, sum);
  return sum;
}

/** Fills the checksum of the L4 segment bytes[offset, offset+length) sent over IPv4 (ICMP has no pseudo-header). */
export function setL4ChecksumV4(
  bytes: Uint8Array,
  offset: number,
  length: number,
  protocol: number,
  src: number,
  dst: number,
): number {
  const initial = protocol === IPPROTO_ICMP ? 0 : pseudoHeaderSumV4(src, dst, protocol, length);
  return storeL4Checksum(bytes, offset, length, protocol, initial);
}

/** Fills the checksum of an L4 segment sent over IPv6 (UDP, TCP, ICMPv6 all use the pseudo-header). */
export function setL4ChecksumV6(
  bytes: Uint8Array,
  offset: number,
  length: number,
  protocol: number,
  src: Uint8Array,
  srcOffset: number,
  dst: Uint8Array,
  dstOffset: number,
): number {
  const initial = pseudoHeaderSumV6(src, srcOffset, dst, dstOffset, protocol, length);
  return storeL4Checksum(bytes, offset, length, protocol, initial);
}

/** Verifies an L4 checksum over IPv4. A UDP checksum of 0 means "not computed" and counts as valid. */
export function verifyL4ChecksumV4(
  bytes: Uint8Array,
  offset: number,
  length: number,
  protocol: number,
  src: number,
  dst: number,
): boolean {
  if (protocol === IPPROTO_UDP && read16(bytes, offset + 6) === 0) return true;
  const initial = protocol === IPPROTO_ICMP ? 0 : pseudoHeaderSumV4(src, dst, protocol, length);
  return verifyChecksum(bytes, offset, offset + length, initial);
}

/** Verifies an L4 checksum over IPv6 (a zero UDP checksum is invalid over IPv6, RFC 8200). */
export function verifyL4ChecksumV6(
  bytes: Uint8Array,
  offset: number,
  length: number,
  protocol: number,
  src: Uint8Array,
  srcOffset: number,
  dst: Uint8Array,
  dstOffset: number,
): boolean {
  if (protocol === IPPROTO_UDP && read16(bytes, offset + 6) === 0) return false;
  return verifyChecksum(bytes, offset, offset + length, pseudoHeaderSumV6(src, srcOffset, dst, dstOffset, protocol, length));
}

/** 32-bit one's-complement add with end-around carry (the kernel's csum_add). */
function csumAdd(a: number, b: number): number {
  const r = (a + b) >>> 0;
  return r < b ? (r + 1) >>> 0 : r;
}

/**
 * RFC 1624 update for a 32-bit field (e.g. an IPv4 address) changing from oldValue to newValue,
 * computed as the kernel's csum_replace4 does, so that even the choice between the two
 * one's-complement zeros (0x0000 / 0xffff) gives the kernel's bytes.
 */
export function checksumReplace32(check: number, oldValue: number, newValue: number): number {
  let sum = csumAdd(csumAdd(~check >>> 0, ~oldValue >>> 0), newValue >>> 0);
  sum = (sum & 0xffff) + (sum >>> 16);
  sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

/** RFC 1624 update for a 16-bit field (a port, the TTL/protocol word), as inet_proto_csum_replace2 computes it. */
export function checksumReplace16(check: number, oldValue: number, newValue: number): number {
  return checksumReplace32(check, oldValue & 0xffff, newValue & 0xffff);
}

/** Incremental update of a UDP-over-IPv4 checksum: 0 ("none") stays 0, a result of 0 is sent as 0xffff. */
export function udpChecksumReplace16(check: number, oldValue: number, newValue: number): number {
  if (check === 0) return 0;
  const next = checksumReplace16(check, oldValue, newValue);
  return next === 0 ? 0xffff : next;
}

export function udpChecksumReplace32(check: number, oldValue: number, newValue: number): number {
  if (check === 0) return 0;
  const next = checksumReplace32(check, oldValue, newValue);
  return next === 0 ? 0xffff : next;
}
