// A sliding window over a file opened with a FileHandle: readers ask for byte ranges by absolute offset,
// the window keeps only what the current record needs (bounded memory, chunked reads).

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
    this.buffer = new Uint8Array(chunkSize);
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
   */
  async load(offset: number, length: number): Promise<number> {
    const wanted = Math.max(0, Math.min(length, this.size - offset));
    if (this.has(offset, wanted)) return wanted;
    const keepFrom = offset - this.start;
    if (keepFrom >= 0 && keepFrom < this.filled) {
      this.buffer.copyWithin(0, keepFrom, this.filled);
      this.filled -= keepFrom;
    } else {
      this.filled = 0;
    }
    this.start = offset;
    if (wanted > this.buffer.length) {
      const grown = new Uint8Array(Math.max(wanted, this.buffer.length * 2));
      grown.set(this.buffer.subarray(0, this.filled));
      this.buffer = grown;
      this.view = new DataView(grown.buffer);
    }
    while (this.filled < wanted) {
      const room = Math.min(this.buffer.length - this.filled, this.size - (this.start + this.filled));
      const { bytesRead } = await this.handle.read(this.buffer, this.filled, room, this.start + this.filled);
      if (bytesRead === 0) break; // the file shrank while we read it
      this.filled += bytesRead;
    }
    return Math.min(wanted, this.filled);
  }

  /** A view of loaded bytes; valid until the next load(). */
  bytes(offset: number, length: number): Uint8Array {
    const at = offset - this.start;
    return this.buffer.subarray(at, at + length);
  }

  /** A copy of loaded bytes, owned by the caller. */
  copy(offset: number, length: number): Uint8Array {
    const at = offset - this.start;
    return this.buffer.slice(at, at + length);
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

  i32(offset: number, littleEndian: boolean): number {
    return this.view.getInt32(offset - this.start, littleEndian);
  }

  u64(offset: number, littleEndian: boolean): bigint {
    return this.view.getBigUint64(offset - this.start, littleEndian);
  }

  i64(offset: number, littleEndian: boolean): bigint {
    return this.view.getBigInt64(offset - this.start, littleEndian);
  }
}
