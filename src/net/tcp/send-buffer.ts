// The send queue's bytes: everything from snd_una on (sent but not yet acknowledged, then not yet
// sent), as a ring of chunks. A chunk either owns its bytes (send(): copied into a pooled 64 KB
// page, as the kernel copies into skb page frags) or borrows the application's buffer without a
// copy (sendZeroCopy(): MSG_ZEROCOPY / sendfile-like, the buffer must not change meanwhile).
// Offsets are relative to snd_una; acknowledged bytes are released from the front. A borrowed
// buffer that is all zeros (iperf's block) marks its chunks zero, so a segment's payload can be
// known to be zeros without reading it (zeroRange).

import { packetBuffers } from "../../skb/buffer-pool.js";

/** Bytes per owned page. */
const PAGE_BYTES = 65536;

export class SendBuffer {
  private cap = 16;
  private first = 0;
  private count = 0;
  private bufs: Uint8Array[] = new Array<Uint8Array>(16);
  private offs = new Int32Array(16);
  private lens = new Int32Array(16);
  /** 1 = the chunk's buffer is an owned page (recycled when the chunk is released). */
  private owned = new Uint8Array(16);
  /** 1 = the chunk's bytes are all zeros (a borrowed buffer found all zeros; it never changes). */
  private zero = new Uint8Array(16);
  /** Borrowed buffers seen on this connection, and whether each is all zeros (they never change while it lives). */
  private readonly zeroBuffers = new Map<Uint8Array, boolean>();
  /** Lookup hint for copyOut: the hintIdx-th chunk from the front starts hintAt bytes after the front. */
  private hintIdx = 0;
  private hintAt = 0;
  /** Bytes held (acknowledged bytes are released from the front). */
  length = 0;

  /** Appends a copy of bytes[from, from+n). */
  append(bytes: Uint8Array, from: number, n: number): void {
    let src = from;
    let left = n;
    while (left > 0) {
      let s = this.count > 0 ? this.slot(this.count - 1) : -1;
      if (s < 0 || this.owned[s] === 0 || this.offs[s]! + this.lens[s]! === PAGE_BYTES) {
        this.push(packetBuffers.acquire(PAGE_BYTES), 0, 0, 1, 0);
        s = this.slot(this.count - 1);
      }
      const at = this.offs[s]! + this.lens[s]!;
      const chunk = Math.min(left, PAGE_BYTES - at);
      this.bufs[s]!.set(bytes.subarray(src, src + chunk), at);
      this.lens[s] = this.lens[s]! + chunk;
      src += chunk;
      left -= chunk;
    }
    this.length += n;
  }

  /** Appends bytes[from, from+n) by reference: the caller keeps them unchanged while the connection lives. */
  appendShared(bytes: Uint8Array, from: number, n: number): void {
    if (n <= 0) return;
    let zero = this.zeroBuffers.get(bytes);
    if (zero === undefined) {
      zero = allZero(bytes);
      this.zeroBuffers.set(bytes, zero);
    }
    this.push(bytes, from, n, 0, zero ? 1 : 0);
    this.length += n;
  }

  /** Copies n bytes starting `offset` bytes after the front into dest[destAt...]. */
  copyOut(offset: number, n: number, dest: Uint8Array, destAt: number): void {
    let i = this.locate(offset);
    let s = this.slot(i);
    let within = offset - this.hintAt;
    let left = n;
    let d = destAt;
    for (;;) {
      const from = this.offs[s]! + within;
      const chunk = Math.min(left, this.lens[s]! - within);
      dest.set(this.bufs[s]!.subarray(from, from + chunk), d);
      d += chunk;
      left -= chunk;
      if (left === 0) return;
      within = 0;
      s = this.slot(++i);
    }
  }

  /** True when the n bytes starting `offset` bytes after the front are known to be zeros (from zero borrowed buffers). */
  zeroRange(offset: number, n: number): boolean {
    let i = this.locate(offset);
    let s = this.slot(i);
    let left = n + (offset - this.hintAt);
    for (;;) {
      if (this.zero[s] === 0) return false;
      left -= this.lens[s]!;
      if (left <= 0) return true;
      s = this.slot(++i);
    }
  }

  /** Index (from the front) of the chunk holding `offset`; leaves hintIdx/hintAt at it. */
  private locate(offset: number): number {
    let i = 0;
    let start = 0;
    if (offset >= this.hintAt && this.hintIdx < this.count) {
      i = this.hintIdx;
      start = this.hintAt;
    }
    let s = this.slot(i);
    while (offset >= start + this.lens[s]!) {
      start += this.lens[s]!;
      s = this.slot(++i);
    }
    this.hintIdx = i;
    this.hintAt = start;
    return i;
  }

  /** Drops n acknowledged bytes from the front. */
  release(n: number): void {
    let left = Math.min(n, this.length);
    this.length -= left;
    while (left > 0) {
      const s = this.first;
      const len = this.lens[s]!;
      const take = Math.min(left, len);
      // The hinted chunk keeps its place unless it is the front one, which always starts at 0.
      if (this.hintIdx > 0) this.hintAt -= take;
      if (take < len) {
        this.offs[s] = this.offs[s]! + take;
        this.lens[s] = len - take;
        return;
      }
      left -= take;
      if (this.hintIdx > 0) this.hintIdx--;
      if (this.owned[s] === 1) packetBuffers.release(this.bufs[s]!);
      this.first = (s + 1) & (this.cap - 1);
      this.count--;
    }
  }

  /** Ring slot of the i-th chunk from the front. */
  private slot(i: number): number {
    return (this.first + i) & (this.cap - 1);
  }

  private push(buf: Uint8Array, off: number, len: number, owned: number, zero: number): void {
    if (this.count === this.cap) this.grow();
    const s = this.slot(this.count++);
    this.bufs[s] = buf;
    this.offs[s] = off;
    this.lens[s] = len;
    this.owned[s] = owned;
    this.zero[s] = zero;
  }

  private grow(): void {
    const cap = this.cap * 2;
    const bufs = new Array<Uint8Array>(cap);
    const offs = new Int32Array(cap);
    const lens = new Int32Array(cap);
    const owned = new Uint8Array(cap);
    const zero = new Uint8Array(cap);
    for (let i = 0; i < this.count; i++) {
      const s = this.slot(i);
      bufs[i] = this.bufs[s]!;
      offs[i] = this.offs[s]!;
      lens[i] = this.lens[s]!;
      owned[i] = this.owned[s]!;
      zero[i] = this.zero[s]!;
    }
    this.bufs = bufs;
    this.offs = offs;
    this.lens = lens;
    this.owned = owned;
    this.zero = zero;
    this.cap = cap;
    this.first = 0;
  }
}

/**
 * Whether every byte is zero, the aligned middle read as 32-bit words (the check runs once per
 * connection and buffer). The ragged ends go first so that nothing but `return true` follows the
 * long loop: code after it would have no type feedback when the loop is optimized on stack, and
 * would throw that code away at every call.
 */
function allZero(bytes: Uint8Array): boolean {
  const n = bytes.length;
  const lead = Math.min((4 - (bytes.byteOffset & 3)) & 3, n);
  const words = (n - lead) >>> 2;
  for (let i = 0; i < lead; i++) if (bytes[i] !== 0) return false;
  for (let i = lead + words * 4; i < n; i++) if (bytes[i] !== 0) return false;
  if (words === 0) return true;
  const w = new Uint32Array(bytes.buffer, bytes.byteOffset + lead, words);
  for (let k = 0; k < words; k++) if (w[k] !== 0) return false;
  return true;
}
