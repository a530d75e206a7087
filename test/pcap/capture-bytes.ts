// Test-side construction of capture files from the format specifications (libpcap file format,
// draft-ietf-opsawg-pcapng), independent of cnisim's writers, in either byte order.
import { readFileSync } from "node:fs";

const utf8 = new TextEncoder();

/** Grows a byte list with fixed-width fields in one byte order. */
class Bytes {
  private readonly parts: number[] = [];
  constructor(private readonly littleEndian: boolean) {}
  u8(v: number): this {
    this.parts.push(v & 0xff);
    return this;
  }
  u16(v: number): this {
    const b = [v & 0xff, (v >>> 8) & 0xff];
    this.parts.push(...(this.littleEndian ? b : b.reverse()));
    return this;
  }
  u32(v: number): this {
    const b = [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff];
    this.parts.push(...(this.littleEndian ? b : b.reverse()));
    return this;
  }
  u64(v: bigint): this {
    const hi = Number((BigInt.asUintN(64, v) >> 32n) & 0xffffffffn);
    const lo = Number(BigInt.asUintN(64, v) & 0xffffffffn);
    return this.littleEndian ? this.u32(lo).u32(hi) : this.u32(hi).u32(lo);
  }
  raw(bytes: Uint8Array | readonly number[]): this {
    this.parts.push(...bytes);
    return this;
  }
  pad4(): this {
    while (this.parts.length % 4 !== 0) this.parts.push(0);
    return this;
  }
  get length(): number {
    return this.parts.length;
  }
  toArray(): number[] {
    return this.parts;
  }
}

export type Option = readonly [code: number, value: Uint8Array];
export const textOption = (code: number, text: string): Option => [code, utf8.encode(text)];
export const byteOption = (code: number, byte: number): Option => [code, Uint8Array.of(byte)];

/** Builds pcapng files block by block; every method returns the file offset where its block starts. */
export class PcapngBytes {
  private readonly blocks: number[] = [];
  private littleEndian: boolean;

  constructor(littleEndian = true) {
    this.littleEndian = littleEndian;
  }

  get offset(): number {
    return this.blocks.length;
  }

  /** Starts a section; a later section may switch byte order. */
  shb(options: readonly Option[] = [], littleEndian = this.littleEndian): number {
    this.littleEndian = littleEndian;
    const body = this.bytes().u32(0x1a2b3c4d).u16(1).u16(0).u64(-1n);
    return this.block(0x0a0d0d0a, body, options);
  }

  idb(linkType: number, snaplen: number, options: readonly Option[] = []): number {
    return this.block(1, this.bytes().u16(linkType).u16(0).u32(snaplen), options);
  }

  epb(interfaceId: number, tsUnits: bigint, data: Uint8Array, len = data.length): number {
    const body = this.bytes().u32(interfaceId).u32(Number(tsUnits >> 32n)).u32(Number(tsUnits & 0xffffffffn));
    body.u32(data.length).u32(len).raw(data).pad4();
    return this.block(6, body, []);
  }

  opb(interfaceId: number, tsUnits: bigint, data: Uint8Array, len = data.length): number {
    const body = this.bytes().u16(interfaceId).u16(0).u32(Number(tsUnits >> 32n)).u32(Number(tsUnits & 0xffffffffn));
    body.u32(data.length).u32(len).raw(data).pad4();
    return this.block(2, body, []);
  }

  spb(data: Uint8Array, len = data.length): number {
    return this.block(3, this.bytes().u32(len).raw(data).pad4(), []);
  }

  /** Any block type with an opaque body (a multiple of 4 bytes). */
  other(type: number, body: readonly number[]): number {
    return this.block(type, this.bytes().raw(body).pad4(), []);
  }

  /** Appends bytes as they are (for corrupt files). */
  raw(bytes: readonly number[]): number {
    const at = this.offset;
    this.blocks.push(...bytes);
    return at;
  }

  toUint8Array(): Uint8Array {
    return Uint8Array.from(this.blocks);
  }

  private bytes(): Bytes {
    return new Bytes(this.littleEndian);
  }

  private block(type: number, body: Bytes, options: readonly Option[]): number {
    const at = this.offset;
    const opts = this.bytes();
    for (const [code, value] of options) opts.u16(code).u16(value.length).raw(value).pad4();
    if (options.length > 0) opts.u32(0);
    const total = 12 + body.length + opts.length;
    const block = this.bytes().u32(type).u32(total).raw(body.toArray()).raw(opts.toArray()).u32(total);
    this.blocks.push(...block.toArray());
    return at;
  }
}

export type ClassicRecord = { seconds: number; fraction: number; data: Uint8Array; len?: number; caplen?: number };

/** A classic pcap file; `magic` picks micro/nano/modified, caplen may be forced to a wrong value. */
export function classicPcap(
  records: readonly ClassicRecord[],
  options: { littleEndian?: boolean; magic?: number; snaplen?: number; linkType?: number } = {},
): Uint8Array {
  const b = new Bytes(options.littleEndian ?? true);
  const magic = options.magic ?? 0xa1b2c3d4;
  b.u32(magic).u16(2).u16(4).u32(0).u32(0).u32(options.snaplen ?? 65535).u32(options.linkType ?? 1);
  for (const r of records) {
    b.u32(r.seconds).u32(r.fraction).u32(r.caplen ?? r.data.length).u32(r.len ?? r.data.length);
    if (magic === 0xa1b2cd34) b.u32(0).u16(0).u8(0).u8(0); // modified pcap: ifindex, protocol, pkt_type, pad
    b.raw(r.data);
  }
  return Uint8Array.from(b.toArray());
}

/** The byte-swapped (big-endian <-> little-endian) copy of a classic pcap file. */
export function swapClassicByteOrder(file: Uint8Array): Uint8Array {
  const out = Uint8Array.from(file);
  const view = new DataView(out.buffer);
  const swap32 = (at: number): void => view.setUint32(at, view.getUint32(at, true), false);
  const swap16 = (at: number): void => view.setUint16(at, view.getUint16(at, true), false);
  const le = view.getUint32(0, true) === 0xa1b2c3d4 || view.getUint32(0, true) === 0xa1b23c4d;
  if (!le) throw new Error("swapClassicByteOrder expects a little-endian file");
  swap32(0);
  swap16(4);
  swap16(6);
  for (const at of [8, 12, 16, 20]) swap32(at);
  let pos = 24;
  while (pos + 16 <= out.length) {
    const caplen = view.getUint32(pos + 8, true);
    for (const at of [0, 4, 8, 12]) swap32(pos + at);
    pos += 16 + caplen;
  }
  return out;
}

/** The first `count` frames of a classic little-endian capture (data only), for use inside crafted files. */
export function framesOf(path: string, count: number): Uint8Array[] {
  const file = readFileSync(path);
  const frames: Uint8Array[] = [];
  let pos = 24;
  while (frames.length < count && pos + 16 <= file.length) {
    const caplen = file.readUInt32LE(pos + 8);
    frames.push(Uint8Array.from(file.subarray(pos + 16, pos + 16 + caplen)));
    pos += 16 + caplen;
  }
  return frames;
}
