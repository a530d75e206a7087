// FNV-1a 32-bit (hash/fnv New32a) over the UTF-8 bytes of strings and raw byte arrays.

const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;

export class Fnv32a {
  private h = OFFSET_BASIS;

  writeBytes(bytes: Uint8Array): this {
    let h = this.h;
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, PRIME) >>> 0;
    this.h = h;
    return this;
  }

  writeString(text: string): this {
    return this.writeBytes(new TextEncoder().encode(text));
  }

  /** The hash as an unsigned 32-bit integer. */
  sum32(): number {
    return this.h >>> 0;
  }
}
