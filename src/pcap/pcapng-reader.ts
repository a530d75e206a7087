// pcapng files: sections (either byte order), interfaces with their options, and the packet blocks
// EPB, SPB and OPB. Other block types are passed over and counted. Each block's two length fields must agree.

import type { CaptureProblem } from "./errors.js";
import type { FileWindow } from "./file-window.js";
import { MAX_CAPLEN } from "./limits.js";
import {
  BlockType,
  BYTE_ORDER_MAGIC,
  blockName,
  IdbOption,
  MAX_LOADED_BLOCK_LENGTH,
  MIN_BLOCK_LENGTH,
} from "./pcapng-blocks.js";
import { pad4, walkOptions } from "./pcapng-options.js";
import type { FormatReader, ReadContext } from "./read-context.js";
import { decodeTsresol, MAX_TSRESOL_EXPONENT, timestampScale, type TimestampScale, unitsToNs } from "./timestamp.js";
import type { CaptureInterface, CaptureRecord, TimestampResolution } from "./types.js";

type Section = { interfaces: CaptureInterface[]; scales: TimestampScale[] };

type PacketFields = { interfaceInSection: number; tsUnits: bigint | null; caplen: number; len: number; dataOffset: number; optionsEnd: number };

const utf8 = new TextDecoder("utf-8", { fatal: false });

/** Option visitor for blocks whose options cnisim does not use (their framing is still checked). */
const ignoreOption = (): null => null;

function isPacketBlock(type: number): boolean {
  return type === BlockType.EPB || type === BlockType.SPB || type === BlockType.OPB;
}

export function* readPcapng(ctx: ReadContext): FormatReader {
  const win = ctx.window;
  let section: Section | null = null;
  let sectionLittleEndian = true;
  let sectionNumber = -1;
  let index = 0;
  let pos = 0;
  for (;;) {
    const got = win.has(pos, 12) ? 12 : yield ctx.request(pos, 12);
    if (got === 0) return;
    if (got < 8) {
      ctx.fail({ offset: pos, reason: `truncated block header: ${got} bytes before end of file`, resync: true }, 0);
      return;
    }
    // The SHB type code reads the same in both byte orders; other blocks use their section's order.
    let le: boolean = sectionLittleEndian;
    const type = win.u32(pos, le);
    if (type === BlockType.SHB) {
      if (got < 12) {
        ctx.fail({ offset: pos, reason: `truncated Section Header Block: ${got} bytes before end of file`, resync: true }, 0);
        return;
      }
      const bom = win.u32(pos + 8, true);
      if (bom !== BYTE_ORDER_MAGIC && bom !== 0x4d3c2b1a) {
        const reason = `Section Header Block has byte-order magic 0x${bom.toString(16)}, not 0x1a2b3c4d in either byte order`;
        ctx.fail({ offset: pos + 8, reason, resync: false }, 0);
        return;
      }
      le = bom === BYTE_ORDER_MAGIC;
    } else if (section === null) {
      ctx.fail({ offset: pos, reason: "pcapng file does not start with a Section Header Block", resync: false }, 0);
      return;
    }
    const name = blockName(type);
    const packet = isPacketBlock(type);
    if (packet) {
      index++;
      ctx.summary.read++;
    }
    const itemIndex = packet ? index : 0;
    const totalLength = win.u32(pos + 4, le);
    const minLength = (MIN_BLOCK_LENGTH as Record<number, number>)[type] ?? MIN_BLOCK_LENGTH.any;
    if (totalLength < minLength || totalLength % 4 !== 0) {
      const reason = `${name} block total length ${totalLength} is invalid (must be a multiple of 4 and at least ${minLength})`;
      ctx.fail({ offset: pos + 4, reason, resync: false }, itemIndex);
      return;
    }
    if (pos + totalLength > win.size) {
      const reason = `truncated ${name} block: total length ${totalLength} but only ${win.size - pos} bytes before end of file`;
      ctx.fail({ offset: pos, reason, resync: true }, itemIndex);
      return;
    }
    const trailerOffset = pos + totalLength - 4;
    const parsed = type === BlockType.SHB || type === BlockType.IDB || packet;
    if (!parsed || totalLength > MAX_LOADED_BLOCK_LENGTH) {
      if (!win.has(trailerOffset, 4)) yield ctx.request(trailerOffset, 4);
      const trailerOk = win.u32(trailerOffset, le) === totalLength;
      if (!trailerOk) {
        ctx.fail(trailerMismatch(name, trailerOffset, win.u32(trailerOffset, le), totalLength), itemIndex);
        return;
      }
      if (parsed) {
        const reason = `${name} block total length ${totalLength} is over the ${MAX_LOADED_BLOCK_LENGTH}-byte limit`;
        if (!ctx.fail({ offset: pos + 4, reason, resync: true }, itemIndex)) return;
        if (type === BlockType.SHB) return; // a section we cannot read: nothing after it makes sense
      } else {
        ctx.countOtherBlock(name);
      }
      pos += totalLength;
      continue;
    }
    if (!win.has(pos, totalLength)) yield ctx.request(pos, totalLength);
    const trailer = win.u32(trailerOffset, le);
    const trusted = trailer === totalLength;
    let problem: CaptureProblem | null = null;
    if (type === BlockType.SHB) {
      const major = win.u16(pos + 12, le);
      const minor = win.u16(pos + 14, le);
      if (major !== 1) {
        ctx.fail({ offset: pos + 12, reason: `unsupported pcapng version ${major}.${minor} (expected 1.x)`, resync: false }, 0);
        return;
      }
      sectionNumber++;
      section = { interfaces: [], scales: [] };
      sectionLittleEndian = le;
      problem = walkOptions(win, pos + 24, trailerOffset, le, "SHB", trusted, ignoreOption);
    } else if (type === BlockType.IDB) {
      const current: Section = section as Section;
      const parsedIdb = parseIdb(win, pos, trailerOffset, le, trusted);
      problem = parsedIdb.problem;
      const iface: CaptureInterface = {
        ...parsedIdb.fields,
        id: ctx.summary.interfaces.length,
        section: sectionNumber,
        idInSection: current.interfaces.length,
      };
      current.interfaces.push(iface);
      current.scales.push(timestampScale(iface.tsResolution, iface.tsOffsetSeconds));
      ctx.summary.interfaces.push(iface);
    } else {
      const outcome = packetRecord(win, type, pos, totalLength, le, section as Section, sectionNumber, index);
      if ("reason" in outcome) problem = { ...outcome, resync: trusted };
      else if (trusted) yield outcome;
    }
    if (problem !== null && !ctx.fail(problem, itemIndex)) return;
    if (!trusted) {
      ctx.fail(trailerMismatch(name, trailerOffset, trailer, totalLength), itemIndex);
      return;
    }
    pos += totalLength;
  }
}

function trailerMismatch(name: string, offset: number, trailer: number, totalLength: number): CaptureProblem {
  const reason = `${name} block length mismatch: trailing length ${trailer} differs from leading length ${totalLength}`;
  return { offset, reason, resync: false };
}

/** The record an EPB, OPB or SPB holds, or what is wrong with it. */
function packetRecord(
  win: FileWindow,
  type: number,
  pos: number,
  totalLength: number,
  le: boolean,
  section: Section,
  sectionNumber: number,
  index: number,
): CaptureRecord | { offset: number; reason: string } {
  const name = blockName(type);
  const fields = parsePacketFields(win, type, pos, totalLength, le, section);
  if ("reason" in fields) return fields;
  const iface = section.interfaces[fields.interfaceInSection];
  if (iface === undefined) {
    const reason = `${name} refers to interface ${fields.interfaceInSection} but section ${sectionNumber} has ${section.interfaces.length}`;
    return { offset: pos + 8, reason };
  }
  const bad = checkPacket(fields, iface);
  if (bad !== null) return { offset: pos, reason: `${name}: ${bad}` };
  const options = walkOptions(win, fields.dataOffset + pad4(fields.caplen), fields.optionsEnd, le, name, true, ignoreOption);
  if (options !== null) return options;
  return {
    index,
    interfaceId: iface.id,
    linkType: iface.linkType,
    tsNs: fields.tsUnits === null ? 0n : unitsToNs(fields.tsUnits, section.scales[fields.interfaceInSection]!),
    caplen: fields.caplen,
    len: fields.len,
    data: win.bytes(fields.dataOffset, fields.caplen),
    fileOffset: pos,
  };
}

type IdbFields = Omit<CaptureInterface, "id" | "section" | "idInSection">;

function parseIdb(
  win: FileWindow,
  pos: number,
  end: number,
  le: boolean,
  trusted: boolean,
): { fields: IdbFields; problem: CaptureProblem | null } {
  let name: string | null = null;
  let description: string | null = null;
  let tsResolution: TimestampResolution = { base: 10, exponent: 6 };
  let tsOffsetSeconds = 0n;
  const problem = walkOptions(win, pos + 16, end, le, "IDB", trusted, (code, at, length) => {
    switch (code) {
      case IdbOption.IF_NAME:
        name = utf8.decode(win.bytes(at, length));
        return null;
      case IdbOption.IF_DESCRIPTION:
        description = utf8.decode(win.bytes(at, length));
        return null;
      case IdbOption.IF_TSRESOL: {
        if (length !== 1) return `if_tsresol must be 1 byte, not ${length}`;
        const resolution = decodeTsresol(win.u8(at));
        if (resolution.exponent > MAX_TSRESOL_EXPONENT[resolution.base]) {
          return `if_tsresol ${resolution.base}^-${resolution.exponent} is out of range`;
        }
        tsResolution = resolution;
        return null;
      }
      case IdbOption.IF_TSOFFSET:
        if (length !== 8) return `if_tsoffset must be 8 bytes, not ${length}`;
        tsOffsetSeconds = win.i64(at, le);
        return null;
      default:
        return null;
    }
  });
  return {
    fields: {
      linkType: win.u16(pos + 8, le),
      snaplen: win.u32(pos + 12, le),
      name,
      description,
      tsResolution,
      tsOffsetSeconds,
    },
    problem,
  };
}

/** Reads the fixed fields of an EPB, OPB or SPB; returns a problem (without resync) when they do not fit the block. */
function parsePacketFields(
  win: FileWindow,
  type: number,
  pos: number,
  totalLength: number,
  le: boolean,
  section: Section,
): PacketFields | { offset: number; reason: string } {
  const end = pos + totalLength - 4;
  if (type === BlockType.SPB) {
    const len = win.u32(pos + 8, le);
    const snaplen = section.interfaces[0]?.snaplen ?? 0;
    const room = end - (pos + 12);
    const caplen = Math.min(len, snaplen === 0 ? len : snaplen, room);
    return { interfaceInSection: 0, tsUnits: null, caplen, len, dataOffset: pos + 12, optionsEnd: pos + 12 + pad4(caplen) };
  }
  const interfaceInSection = type === BlockType.OPB ? win.u16(pos + 8, le) : win.u32(pos + 8, le);
  const tsUnits = (BigInt(win.u32(pos + 12, le)) << 32n) | BigInt(win.u32(pos + 16, le));
  const caplen = win.u32(pos + 20, le);
  const len = win.u32(pos + 24, le);
  const dataOffset = pos + 28;
  if (dataOffset + caplen > end) {
    return { offset: pos + 20, reason: `${blockName(type)} caplen ${caplen} overruns its block (${end - dataOffset} bytes of room)` };
  }
  return { interfaceInSection, tsUnits, caplen, len, dataOffset, optionsEnd: end };
}

function checkPacket(fields: PacketFields, iface: CaptureInterface): string | null {
  if (fields.caplen > MAX_CAPLEN) return `caplen ${fields.caplen} is absurd (over ${MAX_CAPLEN})`;
  if (iface.snaplen !== 0 && fields.caplen > iface.snaplen) {
    return `caplen ${fields.caplen} exceeds the interface snaplen ${iface.snaplen}`;
  }
  if (fields.caplen > fields.len) return `caplen ${fields.caplen} exceeds the original length ${fields.len}`;
  return null;
}
