// Child process for the streaming test (run with --expose-gc): reads a capture record by record and
// reports the largest live memory (heap + array buffers, after a forced GC) seen while doing so.
import { openCapture } from "../../src/pcap/open-capture.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("memory-probe needs node --expose-gc");

function liveBytes(): number {
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const file = process.argv[2]!;
const baseline = liveBytes();
let peak = baseline;
let records = 0;
let bytes = 0;
const reader = openCapture(file);
for await (const record of reader) {
  records++;
  bytes += record.caplen;
  if (records % 500 === 0) peak = Math.max(peak, liveBytes());
}
peak = Math.max(peak, liveBytes());
process.stdout.write(JSON.stringify({ records, bytes, growth: peak - baseline, bufferCapacity: reader.bufferCapacity }) + "\n");
