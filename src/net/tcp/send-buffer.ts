// The send queue's bytes: a growable ring holding everything from snd_una on (sent but not yet
// acknowledged, then not yet sent). Offsets are relative to snd_una; the ring grows by doubling.

export class SendBuffer {
  private buf: Uint8Array;
  private start = 0;
  /** Bytes held (acknowledged bytes are released from the front). */
  length = 0;

  constructor(initialCapacity = 16384) {
    this.buf = new Uint8Array(initialCapacity);
  }

  /** Appends bytes[from, from+n). */
  append(bytes: Uint8Array, from: number, n: number): void {
    this.reserve(this.length + n);
    const cap = this.buf.length;
    let at = (this.start + this.length) % cap;
    let left = n;
    let src = from;
    while (left > 0) {
      const chunk = Math.min(left, cap - at);
      this.buf.set(bytes.subarray(src, src + chunk), at);
      src += chunk;
      left -= chunk;
      at = (at + chunk) % cap;
    }
    this.length += n;
  }

  /** Copies n bytes starting `offset` bytes after the front into dest[destAt...]. */
  copyOut(offset: number, n: number, dest: Uint8Array, destAt: number): void {
    const cap = this.buf.length;
    let at = (this.start + offset) % cap;
    let left = n;
    let d = destAt;
    while (left > 0) {
      const chunk = Math.min(left, cap - at);
      dest.set(this.buf.subarray(at, at + chunk), d);
      d += chunk;
      left -= chunk;
      at = 0;
    }
  }

  /** Drops n acknowledged bytes from the front. */
  release(n: number): void {
    const k = Math.min(n, this.length);
    this.start = (this.start + k) % this.buf.length;
    this.length -= k;
  }

  private reserve(need: number): void {
    if (need <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    this.copyOut(0, this.length, next, 0);
    this.buf = next;
    this.start = 0;
  }
}
