// Recycled packet buffers (Linux's page pool, in spirit): packet data for senders that write every
// byte of it (TCP), handed back by the last holder once the packet is consumed. Fresh 64 KB
// buffers cost page faults and GC work that dwarfed the copy itself; a recycled one is cache-hot.
// Contents of an acquired buffer are unspecified: the caller must write every byte it will read.

import { resetSumMemo } from "../wire/checksum.js";
import { DEFAULT_HEADROOM, type SkBuff } from "./skbuff.js";

/** Buffer sizes served (headroom included); larger requests get a fresh, unpooled buffer. */
const CLASS_BYTES = [256, 2048, 16384, 65536 + DEFAULT_HEADROOM] as const;
/** Free buffers kept per class (beyond that, released buffers go to the garbage collector). */
const CLASS_KEEP = [4096, 2048, 1024, 1024] as const;

/**
 * Pool state kept on each pooled ArrayBuffer itself (one property, the same on all of them, so the
 * access stays monomorphic; a WeakMap did the same bookkeeping at several times the cost per
 * packet; foreign buffers lack the property). The class is the buffer's size.
 */
class BufferState {
  constructor(
    /** The buffer's size class (index into CLASS_BYTES): release need not ask the buffer its length. */
    readonly sizeClass: number,
  ) {}
  /** The pool that handed the buffer out; null while it is free there. */
  owner: PacketBufferPool | null = null;
  /**
   * Byte range known to hold zeros (noteZeros by its holders; while a holder has the buffer, only the
   * part past its view); empty when zeroEnd <= zeroStart.
   */
  zeroStart = 0;
  zeroEnd = 0;
}
const POOL_STATE = Symbol("packetBufferPool.state");
type PooledBuffer = ArrayBuffer & { [POOL_STATE]?: BufferState };

export class PacketBufferPool {
  private readonly free: PooledBuffer[][] = CLASS_BYTES.map(() => []);
  /** Test hook: fill released buffers with this byte (-1 = off), so a reader of stale bytes shows. */
  poison = -1;
  /** Set by acquireWithZeros: a range of the view handed out that already holds zeros (empty when zeroEnd <= zeroStart). */
  zeroStart = 0;
  zeroEnd = 0;
  /**
   * The view handed out last and its buffer's state: its holder notes zeros right after acquiring it,
   * and a typed array's .buffer and .byteOffset are accessor calls costing tens of nanoseconds.
   */
  private lastView: Uint8Array | null = null;
  private lastState: BufferState | null = null;

  /** A view of exactly `length` bytes (contents unspecified) over a pooled buffer when one fits. */
  acquire(length: number): Uint8Array {
    const view = this.acquireWithZeros(length);
    this.zeroEnd = 0;
    return view;
  }

  /**
   * acquire(), also telling in zeroStart/zeroEnd which bytes of the view still hold the zeros its
   * last holder noted (noteZeros): a writer of zero payload may skip writing those again.
   */
  acquireWithZeros(length: number): Uint8Array {
    this.zeroStart = 0;
    this.zeroEnd = 0;
    const c = classOf(length);
    if (c < 0) return new Uint8Array(length);
    const ab = this.free[c]!.pop() ?? newBuffer(c);
    const st = ab[POOL_STATE]!;
    st.owner = this;
    const zeroEnd = Math.min(st.zeroEnd, length);
    if (zeroEnd > st.zeroStart) {
      this.zeroStart = st.zeroStart;
      this.zeroEnd = zeroEnd;
    }
    // The new holder may rewrite any byte of its view, none past it (the view is all it has): only
    // the known zeros past the view stay known.
    if (st.zeroEnd > length) st.zeroStart = Math.max(st.zeroStart, length);
    else st.zeroEnd = st.zeroStart = 0;
    resetSumMemo(ab);
    const view = new Uint8Array(ab, 0, length);
    this.lastView = view;
    this.lastState = st;
    return view;
  }

  /**
   * The holder of `view` (from acquire) records that view[start, end) holds zeros and that nothing
   * will write there while it holds the buffer: the buffer's next holder learns it (acquireWithZeros).
   */
  noteZeros(view: Uint8Array, start: number, end: number): void {
    // The last view handed out is known to start at byte 0 of its buffer.
    const last = view === this.lastView;
    const st = last ? this.lastState! : (view.buffer as PooledBuffer)[POOL_STATE];
    if (st === undefined || st.owner !== this || (!last && view.byteOffset !== 0)) return;
    // Zeros up to the view's end join the known zeros past it.
    st.zeroEnd = end === view.length && st.zeroStart === end && st.zeroEnd > end ? st.zeroEnd : end;
    st.zeroStart = start;
  }

  /**
   * Makes view[start, end) zeros, clearing only what lies outside [knownStart, knownEnd) (the zeros
   * acquireWithZeros reported for this view), and notes them for the buffer's next holder.
   */
  writeZeros(view: Uint8Array, start: number, end: number, knownStart: number, knownEnd: number): void {
    if (knownEnd <= start || knownStart >= end) {
      view.fill(0, start, end);
    } else {
      if (start < knownStart) view.fill(0, start, knownStart);
      if (knownEnd < end) view.fill(0, knownEnd, end);
    }
    this.noteZeros(view, start, end);
  }

  /**
   * Gives back the buffer behind `view` (from acquire): only the buffer's last holder may call this,
   * and nothing may read the view afterwards. Views of other buffers, and buffers already given
   * back, are ignored.
   */
  release(view: Uint8Array): void {
    const ab = view.buffer as PooledBuffer;
    const st = ab[POOL_STATE];
    if (st === undefined || st.owner !== this) return;
    st.owner = null;
    const c = st.sizeClass;
    if (this.poison >= 0) {
      new Uint8Array(ab).fill(this.poison);
      st.zeroEnd = 0;
    }
    const list = this.free[c]!;
    if (list.length < CLASS_KEEP[c]!) list.push(ab);
  }
}

function newBuffer(sizeClass: number): PooledBuffer {
  const bytes = CLASS_BYTES[sizeClass]!;
  const ab = new ArrayBuffer(bytes) as PooledBuffer;
  const st = new BufferState(sizeClass);
  st.zeroEnd = bytes; // a new ArrayBuffer is all zeros
  ab[POOL_STATE] = st;
  return ab;
}

function classOf(length: number): number {
  if (length <= CLASS_BYTES[0]) return 0;
  if (length <= CLASS_BYTES[1]) return 1;
  if (length <= CLASS_BYTES[2]) return 2;
  return length <= CLASS_BYTES[3] ? 3 : -1;
}

/** The process-wide pool packet senders and the sockets consuming their packets share. */
export const packetBuffers = new PacketBufferPool();

const NO_BYTES = new Uint8Array(0);

/**
 * consume_skb for the packet's last holder (the socket that took its payload): recycles its buffer
 * and leaves the SkBuff empty, so a stale use reads nothing rather than another packet's bytes.
 */
export function consumeSkb(skb: SkBuff, pool: PacketBufferPool = packetBuffers): void {
  pool.release(skb.data);
  skb.data = NO_BYTES;
  skb.head = 0;
  skb.tail = 0;
}
