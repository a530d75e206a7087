// Public API of the capture layer: the streaming reader, the writers, and their record and error types.

export { CaptureError, CaptureOpenError } from "./errors.js";
export { CaptureReader, openCapture } from "./open-capture.js";
export { PcapWriter, type PacketToWrite, type PcapWriterOptions } from "./pcap-writer.js";
export { PcapngWriter, type PcapngInterfaceSpec, type PcapngPacketToWrite, type PcapngWriterOptions } from "./pcapng-writer.js";
export { ByteSink, type SinkOptions } from "./byte-sink.js";
export { formatTimestampNs } from "./timestamp.js";
export { MAX_CAPLEN } from "./limits.js";
export type {
  CaptureFormat,
  CaptureInterface,
  CaptureRecord,
  CaptureSummary,
  OpenCaptureOptions,
  SkippedRecord,
  TimestampResolution,
} from "./types.js";
