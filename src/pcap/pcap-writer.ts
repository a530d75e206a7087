// PcapWriter: streams a classic pcap file (micro- or nanosecond timestamps, either byte order).

import type { Writable } from "node:stream";
import { ByteSink, type SinkOptions } from "./byte-sink.js";
import { PcapMagic, PCAP_HEADER_LENGTH } from "./classic-reader.js";
import { CaptureError } from "./errors.js";
import { MAX_CAPLEN } from "./limits.js";

export type PcapWriterOptions = {
  readonly linkType: number;
  /** Longest stored packet; longer packets are cut (len keeps the original length). Default 262144. */
  readonly snaplen?: number;
  /** Timestamp resolution of the file; default "ns". */
  readonly resolution?: "us" | "ns";
  readonly byteOrder?: "little" | "big";
};

export type PacketToWrite = {
  readonly tsNs: bigint;
  readonly data: Uint8Array;
  /** Original length when data is already cut short; defaults to data.length. */
  readonly len?: number;
};

const RECORD_HEADER_LENGTH = 16;
const MAX_U32 = 0xffffffffn;

export class PcapWriter {
  private readonly littleEndian: boolean;
  private readonly nanoseconds: boolean;
  private readonly snaplen: number;

  constructor(
    private readonly sink: ByteSink,
    options: PcapWriterOptions,
  ) {
    this.littleEndian = options.byteOrder !== "big";
    this.nanoseconds = options.resolution !== "us";
    this.snaplen = options.snaplen ?? MAX_CAPLEN;
    if (!Number.isInteger(this.snaplen) || this.snaplen < 1 || this.snaplen > MAX_CAPLEN) {
      throw new CaptureError(sink.name, 0, `snaplen ${this.snaplen} must be an integer from 1 to ${MAX_CAPLEN}`);
    }
    const header = new Uint8Array(PCAP_HEADER_LENGTH);
    const view = new DataView(header.buffer);
    const le = this.littleEndian;
    view.setUint32(0, this.nanoseconds ? PcapMagic.NANOSECONDS : PcapMagic.MICROSECONDS, le);
    view.setUint16(4, 2, le);
    view.setUint16(6, 4, le);
    view.setUint32(16, this.snaplen, le);
    view.setUint32(20, options.linkType, le);
    sink.write(header);
  }

  static toFile(path: string, options: PcapWriterOptions): PcapWriter {
    return new PcapWriter(ByteSink.toFile(path), options);
  }

  static toStream(out: Writable, options: PcapWriterOptions, sinkOptions: SinkOptions = {}): PcapWriter {
    return new PcapWriter(new ByteSink(out, "<stream>", sinkOptions), options);
  }

  /** Appends one record; returns false when the caller should await drain() before writing more. */
  write(packet: PacketToWrite): boolean {
    const caplen = Math.min(packet.data.length, this.snaplen);
    const len = packet.len ?? packet.data.length;
    const offset = this.sink.offset;
    if (!Number.isInteger(len) || len < packet.data.length || len > 0xffffffff) {
      throw new CaptureError(this.sink.name, offset, `original length ${len} is smaller than the ${packet.data.length} data bytes or not a u32`);
    }
    const seconds = packet.tsNs / 1_000_000_000n;
    if (packet.tsNs < 0n || seconds > MAX_U32) {
      throw new CaptureError(this.sink.name, offset, `timestamp ${packet.tsNs} ns does not fit a classic pcap record`);
    }
    const nanos = packet.tsNs % 1_000_000_000n;
    const record = new Uint8Array(RECORD_HEADER_LENGTH + caplen);
    const view = new DataView(record.buffer);
    const le = this.littleEndian;
    view.setUint32(0, Number(seconds), le);
    view.setUint32(4, Number(this.nanoseconds ? nanos : nanos / 1000n), le);
    view.setUint32(8, caplen, le);
    view.setUint32(12, len, le);
    record.set(packet.data.subarray(0, caplen), RECORD_HEADER_LENGTH);
    return this.sink.write(record);
  }

  drain(): Promise<void> {
    return this.sink.drain();
  }

  close(): Promise<void> {
    return this.sink.close();
  }
}
