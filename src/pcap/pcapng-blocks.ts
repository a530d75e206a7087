// pcapng block type numbers and fixed sizes (draft-ietf-opsawg-pcapng).

export const BlockType = {
  SHB: 0x0a0d0d0a,
  IDB: 0x00000001,
  /** Obsolete Packet Block: what Ethereal-era writers used before the EPB. */
  OPB: 0x00000002,
  SPB: 0x00000003,
  NRB: 0x00000004,
  ISB: 0x00000005,
  EPB: 0x00000006,
  SJE: 0x00000009,
  DSB: 0x0000000a,
  CB: 0x00000bad,
  CB_NOCOPY: 0x40000bad,
} as const;

export const BYTE_ORDER_MAGIC = 0x1a2b3c4d;

/** Smallest legal total length per block type we parse (header, fixed fields, trailer). */
export const MIN_BLOCK_LENGTH = {
  any: 12,
  [BlockType.SHB]: 28,
  [BlockType.IDB]: 20,
  [BlockType.EPB]: 32,
  [BlockType.OPB]: 32,
  [BlockType.SPB]: 16,
} as const;

/** Blocks we load whole must not exceed this (16 MiB, like Wireshark's limit); others are skipped by seeking. */
export const MAX_LOADED_BLOCK_LENGTH = 16 * 1024 * 1024;

const names = new Map<number, string>(Object.entries(BlockType).map(([name, code]) => [code, name]));

export function blockName(type: number): string {
  return names.get(type) ?? `unknown 0x${type.toString(16).padStart(8, "0")}`;
}

export const IdbOption = {
  IF_NAME: 2,
  IF_DESCRIPTION: 3,
  IF_TSRESOL: 9,
  IF_FCSLEN: 13,
  IF_TSOFFSET: 14,
} as const;

export const ShbOption = { SHB_HARDWARE: 2, SHB_OS: 3, SHB_USERAPPL: 4 } as const;
