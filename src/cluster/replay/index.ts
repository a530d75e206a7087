// Public API of capture replay: push a pcap/pcapng capture into a built cluster at one point, record what
// every interface saw, and report the ledger and drops (the engine of `cnisim replay`).
export { replayCapture, FAST_GAP_NS, REPLAY_TIMINGS, UNPARSED_LISTED, type ReplayOptions, type ReplayReport, type ReplayTiming, type UnparsedRecord } from "./replay.js";
export { type InjectDirection, type ReplayPoint } from "./inject-point.js";
export { type FrameWriter, type FrameWriterFactory, type RecordedInterface } from "./recorder.js";
export { type CaptureOrigin, type ReplayDropTrace, HOP_RING } from "./drop-collector.js";
export { formatReplayText, replayJson } from "./report.js";
