// Big-endian (network order) integer reads and writes on Uint8Array: the accessors every header view uses.
// Callers check bounds first; these helpers never allocate.

export function read16(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! << 8) | bytes[offset + 1]!;
}

export function read24(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! << 16) | (bytes[offset + 1]! << 8) | bytes[offset + 2]!;
}

export function read32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
}

export function write16(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = (value >>> 8) & 255;
  bytes[offset + 1] = value & 255;
}

export function write24(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = (value >>> 16) & 255;
  bytes[offset + 1] = (value >>> 8) & 255;
  bytes[offset + 2] = value & 255;
}

export function write32(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = (value >>> 24) & 255;
  bytes[offset + 1] = (value >>> 16) & 255;
  bytes[offset + 2] = (value >>> 8) & 255;
  bytes[offset + 3] = value & 255;
}

/** The usable end of a range: never past the buffer. */
export function clampEnd(bytes: Uint8Array, end: number): number {
  return end > bytes.length ? bytes.length : end;
}
