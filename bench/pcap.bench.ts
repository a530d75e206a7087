// Capture reading and writing throughput, as ratios against a baseline in the same run: the baseline
// reads the whole file into memory and walks its classic pcap record headers with a DataView, taking a
// view of each record (the least work any reader must do). Ours streams through 64 KiB chunks instead,
// checks every header and builds a record object with a BigInt timestamp. The write baseline builds the
// records in memory and concatenates them; the writers stream them to a Writable that discards them.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { Bench } from "tinybench";
import { openCapture } from "../src/pcap/open-capture.js";
import { PcapWriter } from "../src/pcap/pcap-writer.js";
import { PcapngWriter } from "../src/pcap/pcapng-writer.js";

const RECORDS = 4000;
const FRAME = new Uint8Array(600).map((_, i) => i & 0xff);
const dir = mkdtempSync(path.join(tmpdir(), "cnisim-pcap-bench-"));
const pcapFile = path.join(dir, "bench.pcap");
const ngFile = path.join(dir, "bench.pcapng");

const discard = (): Writable => new Writable({ write: (_chunk, _encoding, done) => done() });

async function writePcap(out: PcapWriter | PcapngWriter): Promise<void> {
  for (let i = 0; i < RECORDS; i++) {
    const packet = { interfaceId: 0, tsNs: BigInt(i) * 1000n, data: FRAME };
    if (!out.write(packet)) await out.drain();
  }
  await out.close();
}

await writePcap(PcapWriter.toFile(pcapFile, { linkType: 1 }));
await writePcap(PcapngWriter.toFile(ngFile, { interfaces: [{ linkType: 1, name: "eth0" }] }));

let sink = 0;

function baselineRead(): void {
  const file = readFileSync(pcapFile);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  for (let pos = 24; pos + 16 <= file.length; ) {
    const caplen = view.getUint32(pos + 8, true);
    sink ^= file.subarray(pos + 16, pos + 16 + caplen).length;
    pos += 16 + caplen;
  }
}

async function streamRead(file: string): Promise<void> {
  for await (const record of openCapture(file)) sink ^= record.caplen;
}

function baselineWrite(): void {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < RECORDS; i++) {
    const record = new Uint8Array(16 + FRAME.length);
    new DataView(record.buffer).setUint32(8, FRAME.length, true);
    record.set(FRAME, 16);
    parts.push(record);
  }
  sink ^= Buffer.concat(parts).length;
}

const bench = new Bench({ time: 500, warmupTime: 100 });
bench
  .add("baseline read: readFile + header walk", baselineRead)
  .add("openCapture pcap (streaming)", () => streamRead(pcapFile))
  .add("openCapture pcapng (streaming)", () => streamRead(ngFile))
  .add("baseline write: build records in memory", baselineWrite)
  .add("PcapWriter to a stream", () => writePcap(PcapWriter.toStream(discard(), { linkType: 1 })))
  .add("PcapngWriter to a stream", () => writePcap(PcapngWriter.toStream(discard(), { interfaces: [{ linkType: 1 }] })));
await bench.run();

/** Records per second from the median run time (robust to GC pauses and a busy machine). */
const rate = (name: string): number => {
  const task = bench.tasks.find((t) => t.name === name);
  const result = task?.result as { latency?: { p50: number } } | undefined;
  const medianMs = result?.latency?.p50 ?? 0;
  return medianMs > 0 ? (RECORDS * 1000) / medianMs : 0;
};
const rows = [
  ["openCapture pcap (streaming)", "baseline read: readFile + header walk"],
  ["openCapture pcapng (streaming)", "baseline read: readFile + header walk"],
  ["PcapWriter to a stream", "baseline write: build records in memory"],
  ["PcapngWriter to a stream", "baseline write: build records in memory"],
] as const;
console.log(`records of ${FRAME.length} bytes, ${RECORDS} per run`);
console.table(
  rows.map(([name, baseline]) => ({
    task: name,
    "records/s": Math.round(rate(name)),
    "baseline records/s": Math.round(rate(baseline)),
    "ratio vs baseline": Number((rate(name) / rate(baseline)).toFixed(2)),
  })),
);
rmSync(dir, { recursive: true, force: true });
if (sink === -1) console.log("unreachable");
