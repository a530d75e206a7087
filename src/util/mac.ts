// MAC addresses as 48-bit integers (safe in a JS number) and their text form (lowercase, colons).

export function readMac(bytes: Uint8Array, offset: number): number {
  return (
    bytes[offset]! * 0x10000000000 +
    bytes[offset + 1]! * 0x100000000 +
    ((bytes[offset + 2]! << 24) >>> 0) +
    (bytes[offset + 3]! << 16) +
    (bytes[offset + 4]! << 8) +
    bytes[offset + 5]!
  );
}

export function writeMac(bytes: Uint8Array, offset: number, mac: number): void {
  const high = Math.floor(mac / 0x100000000);
  const low = mac >>> 0;
  bytes[offset] = (high >>> 8) & 255;
  bytes[offset + 1] = high & 255;
  bytes[offset + 2] = (low >>> 24) & 255;
  bytes[offset + 3] = (low >>> 16) & 255;
  bytes[offset + 4] = (low >>> 8) & 255;
  bytes[offset + 5] = low & 255;
}

export function formatMac(mac: number): string {
  const bytes = new Uint8Array(6);
  writeMac(bytes, 0, mac);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(":");
}

export function parseMac(text: string): number | null {
  if (!/^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$/.test(text)) return null;
  return parseInt(text.replace(/:/g, ""), 16);
}

export const BROADCAST_MAC = 0xffffffffffff;

/** True for group (multicast or broadcast) addresses: the I/G bit of the first octet. */
export function isGroupMac(mac: number): boolean {
  return Math.floor(mac / 0x10000000000) % 2 === 1;
}
