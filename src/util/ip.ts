// IPv4/IPv6 address <-> integer conversions and formatting for the hot path and output.
// IPv4 addresses are unsigned 32-bit numbers; IPv6 addresses are 16-byte arrays.
// Formatting follows what tcpdump and tshark print (dotted quad; RFC 5952 for IPv6).

/** Parses a dotted-quad IPv4 address to an unsigned 32-bit integer; null when malformed. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value >>> 0;
}

export function formatIPv4(value: number): string {
  return `${(value >>> 24) & 255}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** Reads a big-endian IPv4 address from bytes at offset. */
export function readIPv4(bytes: Uint8Array, offset: number): number {
  return (
    ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0
  );
}

export function writeIPv4(bytes: Uint8Array, offset: number, value: number): void {
  bytes[offset] = (value >>> 24) & 255;
  bytes[offset + 1] = (value >>> 16) & 255;
  bytes[offset + 2] = (value >>> 8) & 255;
  bytes[offset + 3] = value & 255;
}

/** Network mask for a prefix length (0..32) as an unsigned 32-bit integer. */
export function ipv4Mask(prefixLength: number): number {
  return prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
}

export function ipv4InPrefix(address: number, network: number, prefixLength: number): boolean {
  const mask = ipv4Mask(prefixLength);
  return ((address & mask) >>> 0) === ((network & mask) >>> 0);
}

/** Parses an IPv4 CIDR "a.b.c.d/n"; null when malformed. The network keeps the host bits as given. */
export function parseIPv4Cidr(text: string): { address: number; prefixLength: number } | null {
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  const address = parseIPv4(text.slice(0, slash));
  const lenText = text.slice(slash + 1);
  if (address === null || !/^\d{1,2}$/.test(lenText)) return null;
  const prefixLength = Number(lenText);
  if (prefixLength > 32) return null;
  return { address, prefixLength };
}

/** Formats 16 bytes as an RFC 5952 IPv6 address (lowercase, longest zero run compressed, leftmost on ties). */
export function formatIPv6(bytes: Uint8Array, offset = 0): string {
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push((bytes[offset + 2 * i]! << 8) | bytes[offset + 2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (bestLen < 2) bestStart = -1;
  // IPv4-mapped addresses print their last 32 bits as a dotted quad, as tshark does.
  if (bestStart === 0 && bestLen === 5 && groups[5] === 0xffff) {
    return `::ffff:${formatIPv4(readIPv4(bytes, offset + 12))}`;
  }
  const hex = (g: number) => g.toString(16);
  if (bestStart < 0) return groups.map(hex).join(":");
  const head = groups.slice(0, bestStart).map(hex).join(":");
  const tail = groups.slice(bestStart + bestLen).map(hex).join(":");
  return `${head}::${tail}`;
}

/** Parses an IPv6 address in any RFC 4291 text form to 16 bytes; null when malformed. */
export function parseIPv6(text: string): Uint8Array | null {
  let head = text;
  let v4Tail: number | null = null;
  const lastColon = text.lastIndexOf(":");
  if (text.indexOf(".", lastColon) > 0) {
    v4Tail = parseIPv4(text.slice(lastColon + 1));
    if (v4Tail === null) return null;
    head = text.slice(0, lastColon + 1) + "0:0";
  }
  const halves = head.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string): number[] | null => {
    if (s === "") return [];
    const out: number[] = [];
    for (const g of s.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (left === null || right === null) return null;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...left, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 255;
  });
  if (v4Tail !== null) {
    out[12] = (v4Tail >>> 24) & 255;
    out[13] = (v4Tail >>> 16) & 255;
    out[14] = (v4Tail >>> 8) & 255;
    out[15] = v4Tail & 255;
  }
  return out;
}
