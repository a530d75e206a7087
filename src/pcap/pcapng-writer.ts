// PcapngWriter: streams a pcapng section: SHB, one IDB per interface (if_name, if_description,
// if_tsresol = 9, i.e. nanoseconds) and an Enhanced Packet Block per packet.

import type { Writable } from "node:stream";
import { ByteSink, type SinkOptions } from "./byte-sink.js";
import { CaptureError } from "./errors.js";
import { MAX_CAPLEN } from "./limits.js";
import { BlockType, BYTE_ORDER_MAGIC, IdbOption, ShbOption } from "./pcapng-blocks.js";
import { pad4 } from "./pcapng-options.js";
import type { PacketToWrite } from "./pcap-writer.js";

export type PcapngInterfaceSpec = {
  readonly linkType: number;
  readonly name?: string;
  readonly description?: string;
  /** Default 262144. */
  readonly snaplen?: number;
};

export type PcapngWriterOptions = {
  readonly interfaces?: readonly PcapngInterfaceSpec[];
  /** shb_userappl option; default "cnisim". */
  readonly application?: string;
  readonly byteOrder?: "little" | "big";
};

export type PcapngPacketToWrite = PacketToWrite & { readonly interfaceId: number };

const TSRESOL_NANOSECONDS = 9;
const EPB_FIXED_LENGTH = 32;
const utf8 = new TextEncoder();

type Option = { code: number; value: Uint8Array };

export class PcapngWriter {
  private readonly littleEndian: boolean;
  private readonly snaplens: number[] = [];

  constructor(
    private readonly sink: ByteSink,
    options: PcapngWriterOptions = {},
  ) {
    this.littleEndian = options.byteOrder !== "big";
    this.writeShb(options.application ?? "cnisim");
    for (const spec of options.interfaces ?? []) this.addInterface(spec);
  }

  static toFile(path: string, options: PcapngWriterOptions = {}): PcapngWriter {
    return new PcapngWriter(ByteSink.toFile(path), options);
  }

  static toStream(out: Writable, options: PcapngWriterOptions = {}, sinkOptions: SinkOptions = {}): PcapngWriter {
    return new PcapngWriter(new ByteSink(out, "<stream>", sinkOptions), options);
  }

  /** Writes an Interface Description Block and returns the interface id packets must use. */
  addInterface(spec: PcapngInterfaceSpec): number {
    const snaplen = spec.snaplen ?? MAX_CAPLEN;
    if (!Number.isInteger(snaplen) || snaplen < 1 || snaplen > MAX_CAPLEN) {
      throw new CaptureError(this.sink.name, this.sink.offset, `snaplen ${snaplen} must be an integer from 1 to ${MAX_CAPLEN}`);
    }
    const options: Option[] = [];
    if (spec.name !== undefined) options.push({ code: IdbOption.IF_NAME, value: utf8.encode(spec.name) });
    if (spec.description !== undefined) options.push({ code: IdbOption.IF_DESCRIPTION, value: utf8.encode(spec.description) });
    options.push({ code: IdbOption.IF_TSRESOL, value: Uint8Array.of(TSRESOL_NANOSECONDS) });
    const block = this.block(BlockType.IDB, 8, options);
    block.view.setUint16(8, spec.linkType, this.littleEndian);
    block.view.setUint32(12, snaplen, this.littleEndian);
    this.sink.write(block.bytes);
    this.snaplens.push(snaplen);
    return this.snaplens.length - 1;
  }

  /** Appends an Enhanced Packet Block; returns false when the caller should await drain(). */
  write(packet: PcapngPacketToWrite): boolean {
    const offset = this.sink.offset;
    const snaplen = this.snaplens[packet.interfaceId];
    if (snaplen === undefined) {
      throw new CaptureError(this.sink.name, offset, `interface ${packet.interfaceId} was not added (have ${this.snaplens.length})`);
    }
    const len = packet.len ?? packet.data.length;
    if (!Number.isInteger(len) || len < packet.data.length || len > 0xffffffff) {
      throw new CaptureError(this.sink.name, offset, `original length ${len} is smaller than the ${packet.data.length} data bytes or not a u32`);
    }
    if (packet.tsNs < 0n || packet.tsNs > 0xffffffffffffffffn) {
      throw new CaptureError(this.sink.name, offset, `timestamp ${packet.tsNs} ns does not fit 64 bits`);
    }
    const caplen = Math.min(packet.data.length, snaplen);
    const total = EPB_FIXED_LENGTH + pad4(caplen);
    const bytes = new Uint8Array(total);
    const view = new DataView(bytes.buffer);
    const le = this.littleEndian;
    view.setUint32(0, BlockType.EPB, le);
    view.setUint32(4, total, le);
    view.setUint32(8, packet.interfaceId, le);
    view.setUint32(12, Number(packet.tsNs >> 32n), le);
    view.setUint32(16, Number(packet.tsNs & 0xffffffffn), le);
    view.setUint32(20, caplen, le);
    view.setUint32(24, len, le);
    bytes.set(packet.data.subarray(0, caplen), 28);
    view.setUint32(total - 4, total, le);
    return this.sink.write(bytes);
  }

  drain(): Promise<void> {
    return this.sink.drain();
  }

  close(): Promise<void> {
    return this.sink.close();
  }

  private writeShb(application: string): void {
    const block = this.block(BlockType.SHB, 16, [{ code: ShbOption.SHB_USERAPPL, value: utf8.encode(application) }]);
    const le = this.littleEndian;
    block.view.setUint32(8, BYTE_ORDER_MAGIC, le);
    block.view.setUint16(12, 1, le);
    block.view.setUint16(14, 0, le);
    block.view.setBigInt64(16, -1n, le); // section length not given
    this.sink.write(block.bytes);
  }

  /** Allocates a block with `fixed` bytes of body after type+length, then the options, then the trailer. */
  private block(type: number, fixed: number, options: readonly Option[]): { bytes: Uint8Array; view: DataView } {
    let total = 8 + fixed + 4;
    if (options.length > 0) total += options.reduce((n, o) => n + 4 + pad4(o.value.length), 0) + 4;
    const bytes = new Uint8Array(total);
    const view = new DataView(bytes.buffer);
    const le = this.littleEndian;
    view.setUint32(0, type, le);
    view.setUint32(4, total, le);
    let at = 8 + fixed;
    for (const option of options) {
      if (option.value.length > 0xffff) {
        throw new CaptureError(this.sink.name, this.sink.offset, `option ${option.code} value is longer than 65535 bytes`);
      }
      view.setUint16(at, option.code, le);
      view.setUint16(at + 2, option.value.length, le);
      bytes.set(option.value, at + 4);
      at += 4 + pad4(option.value.length);
    }
    // The opt_endofopt that closes a non-empty option list is the 4 zero bytes left before the trailer.
    view.setUint32(total - 4, total, le);
    return { bytes, view };
  }
}
