// A sliding window over a file opened with a FileHandle: readers ask for byte ranges by absolute offset,
// the window holds one chunk (64 KiB, or the largest block asked for) and reads the file chunk by chunk.
// Chunks are never reused, so views handed out stay valid; unreferenced chunks are garbage.

import type { FileHandle } from "node:fs/promises";

export class FileWindow {
  private buffer: Uint8Array;
  private view: DataView;
  /** File offset of buffer[0]. */
  private start = 0;
  /** Number of valid bytes in buffer. */
  private filled = 0;

  constructor(
    private readonly handle: FileHandle,
    /** File size in bytes, taken when the file was opened. */
    readonly size: number,
    private readonly chunkSize: number,
  ) {
    this.buffer = new Uint8Array(0);
    this.view = new DataView(this.buffer.buffer);
  }

  /** Current buffer capacity: the memory this window holds. */
  get capacity(): number {
    return this.buffer.length;
  }

  /** True when [offset, offset + length) is already in memory. */
  has(offset: number, length: number): boolean {
    return offset >= this.start && offset + length <= this.start + this.filled;
  }

  /**
   * Makes [offset, offset + length) available (as much of it as the file holds) and returns how many
   * bytes from offset are now in memory (< length only at end of file). Drops everything before offset.
   * Bytes already handed out by bytes() are never overwritten: a refill moves to a fresh buffer.
   */
  async load(offset: number, length: number): Promise<number> {
    const wanted = Math.max(0, Math.min(length, this.size - offset));
    if (wanted === 0 || this.has(offset, wanted)) return wanted;
    const keepFrom = offset - this.start;
    const kept = keepFrom >= 0 && keepFrom < this.filled ? this.buffer.subarray(keepFrom, this.filled) : null;
    const fresh = new Uint8Array(Math.max(wanted, this.chunkSize));
    if (kept !== null) fresh.set(kept);
    this.buffer = fresh;
    this.view = new DataView(fresh.buffer);
    this.filled = kept?.length ?? 0;
    this.start = offset;
    while (this.filled < wanted) {
      const room = Math.min(fresh.length - this.filled, this.size - (this.start + this.filled));
      const { bytesRead } = await this.handle.read(fresh, this.filled, room, this.start + this.filled);
      if (bytesRead === 0) break; // the file shrank while we read it
      this.filled += bytesRead;
    }
    return Math.min(wanted, this.filled);
  }

  /** A view of loaded bytes. It stays valid (and unchanged) after later loads, and keeps its chunk alive. */
  bytes(offset: number, length: number): Uint8Array {
    const at = offset - this.start;
    return this.buffer.subarray(at, at + length);
  }

  u8(offset: number): number {
    return this.view.getUint8(offset - this.start);
  }

  u16(offset: number, littleEndian: boolean): number {
    return this.view.getUint16(offset - this.start, littleEndian);
  }

  u32(offset: number, littleEndian: boolean): number {
    return this.view.getUint32(offset - this.start, littleEndian);
  }

  i64(offset: number, littleEndian: boolean): bigint {
    return this.view.getBigInt64(offset - this.start, littleEndian);
  }
}
