// Classic libpcap files: global header (both byte orders, micro-/nanosecond magic, the "modified"
// Kuznetzov variant) and the records after it.

import type { CaptureProblem } from "./errors.js";
import { MAX_CAPLEN } from "./limits.js";
import type { FormatReader, LoadRequest, ReadContext } from "./read-context.js";

export const PcapMagic = {
  MICROSECONDS: 0xa1b2c3d4,
  NANOSECONDS: 0xa1b23c4d,
  /** Alexey Kuznetzov's patched libpcap: 8 more bytes per record header (ifindex, protocol, type). */
  MODIFIED: 0xa1b2cd34,
} as const;

export const PCAP_HEADER_LENGTH = 24;
const RECORD_HEADER_LENGTH = 16;
const MODIFIED_RECORD_HEADER_LENGTH = 24;

type ClassicHeader = {
  littleEndian: boolean;
  nanoseconds: boolean;
  recordHeaderLength: number;
  snaplen: number;
  linkType: number;
};

/** Recognises a classic pcap magic number read as little-endian; null when it is not one. */
export function classicMagic(magicLe: number): { littleEndian: boolean; magic: number } | null {
  for (const magic of Object.values(PcapMagic)) {
    if (magicLe === magic) return { littleEndian: true, magic };
    if (magicLe === swap32(magic)) return { littleEndian: false, magic };
  }
  return null;
}

function swap32(v: number): number {
  return (((v & 0xff) << 24) | ((v & 0xff00) << 8) | ((v >>> 8) & 0xff00) | (v >>> 24)) >>> 0;
}

function* readHeader(ctx: ReadContext): Generator<LoadRequest, ClassicHeader | CaptureProblem, number> {
  const win = ctx.window;
  const got = win.has(0, PCAP_HEADER_LENGTH) ? PCAP_HEADER_LENGTH : yield ctx.request(0, PCAP_HEADER_LENGTH);
  if (got < PCAP_HEADER_LENGTH) {
    return { offset: 0, reason: `truncated pcap file header: ${got} of ${PCAP_HEADER_LENGTH} bytes`, resync: false };
  }
  const found = classicMagic(win.u32(0, true));
  if (found === null) return { offset: 0, reason: "not a classic pcap magic number", resync: false };
  const le = found.littleEndian;
  const major = win.u16(4, le);
  if (major !== 2) {
    return { offset: 4, reason: `unsupported pcap version ${major}.${win.u16(6, le)} (expected 2.x)`, resync: false };
  }
  // The link-type field also carries FCS information in its top bits; the type is the low 16 bits.
  return {
    littleEndian: le,
    nanoseconds: found.magic === PcapMagic.NANOSECONDS,
    recordHeaderLength: found.magic === PcapMagic.MODIFIED ? MODIFIED_RECORD_HEADER_LENGTH : RECORD_HEADER_LENGTH,
    snaplen: win.u32(16, le),
    linkType: win.u32(20, le) & 0xffff,
  };
}

export function* readClassic(ctx: ReadContext): FormatReader {
  const header = yield* readHeader(ctx);
  if ("reason" in header) {
    ctx.fail(header, 0);
    return;
  }
  const { littleEndian: le, recordHeaderLength, snaplen, linkType } = header;
  ctx.summary.interfaces.push({
    id: 0,
    section: 0,
    idInSection: 0,
    linkType,
    snaplen,
    name: null,
    description: null,
    tsResolution: { base: 10, exponent: header.nanoseconds ? 9 : 6 },
    tsOffsetSeconds: 0n,
  });
  const fracToNs = header.nanoseconds ? 1n : 1000n;
  const limit = snaplen === 0 ? MAX_CAPLEN : Math.min(snaplen, MAX_CAPLEN);
  const win = ctx.window;
  let pos = PCAP_HEADER_LENGTH;
  let index = 0;
  for (;;) {
    const got = win.has(pos, recordHeaderLength) ? recordHeaderLength : yield ctx.request(pos, recordHeaderLength);
    if (got === 0) return;
    index++;
    ctx.summary.read++;
    if (got < recordHeaderLength) {
      const reason = `truncated record header: ${got} of ${recordHeaderLength} bytes before end of file`;
      ctx.fail({ offset: pos, reason, resync: true }, index);
      return;
    }
    const seconds = win.u32(pos, le);
    const fraction = win.u32(pos + 4, le);
    const caplen = win.u32(pos + 8, le);
    const len = win.u32(pos + 12, le);
    if (caplen > MAX_CAPLEN) {
      const reason = `record caplen ${caplen} is absurd (over ${MAX_CAPLEN}); the record header is not trustworthy`;
      ctx.fail({ offset: pos, reason, resync: false }, index);
      return;
    }
    const next = pos + recordHeaderLength + caplen;
    if (caplen > limit) {
      const reason = `record caplen ${caplen} exceeds the file snaplen ${snaplen}`;
      if (!ctx.fail({ offset: pos, reason, resync: true }, index)) return;
      pos = next;
      continue;
    }
    if (caplen > len) {
      const reason = `record caplen ${caplen} exceeds its original length ${len}`;
      if (!ctx.fail({ offset: pos, reason, resync: true }, index)) return;
      pos = next;
      continue;
    }
    const total = recordHeaderLength + caplen;
    const available = win.has(pos, total) ? total : yield ctx.request(pos, total);
    if (available < total) {
      const reason = `truncated record: caplen ${caplen} but only ${available - recordHeaderLength} data bytes before end of file`;
      ctx.fail({ offset: pos, reason, resync: true }, index);
      return;
    }
    yield {
      index,
      interfaceId: 0,
      linkType,
      tsNs: BigInt(seconds) * 1_000_000_000n + BigInt(fraction) * fracToNs,
      caplen,
      len,
      data: win.bytes(pos + recordHeaderLength, caplen),
      fileOffset: pos,
    };
    pos = next;
  }
}
