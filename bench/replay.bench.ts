// Capture replay into the seed lab: 1000 UDP packets from web/test to web2 (across nodes, IPIP) replayed
// with --timing fast, relative to converting the same records only (FramePreparer), measured in the same
// run: what the datapath, hop tracing for drop traces, and per-interface recording each add.
import { Bench } from "tinybench";
import { buildCluster } from "../src/cluster/build.js";
import { FramePreparer } from "../src/cluster/replay/frames.js";
import { replayCapture, type FrameWriter, type ReplayOptions } from "../src/cluster/replay/index.js";
import { loadFiles } from "../src/k8s/load.js";
import type { CaptureRecord, CaptureSummary } from "../src/pcap/index.js";
import { labFiles, udpPacket } from "../test/cluster/replay-support.js";

const PACKETS = 1000;
const built = buildCluster(await loadFiles(labFiles(), { namespace: "web" }));
if (!built.ok) throw new Error("the seed lab did not build");
const rt = built.value;
const test = rt.pod("web/test")!;
const web2 = rt.pod("web/web2")!;
const records: CaptureRecord[] = Array.from({ length: PACKETS }, (_, i) => {
  const data = udpPacket(test.ip, web2.ip, 20000 + i, 9000, new Uint8Array(64));
  return { index: i + 1, interfaceId: 0, linkType: 101, tsNs: BigInt(i) * 1000n, caplen: data.length, len: data.length, data, fileOffset: 24 + i * (16 + data.length) };
});
async function* stream(): AsyncGenerator<CaptureRecord> {
  yield* records;
}
const summary = (): CaptureSummary => ({ format: "pcap", read: PACKETS, decoded: PACKETS, skipped: [], interfaces: [], otherBlocks: {}, stopped: null });
const nullWriter: FrameWriter = { write: () => true, drain: async () => {}, close: async () => {} };
const point = { label: "web/test", device: test.iface, direction: "transmit" as const };
const replay = (extra: Partial<ReplayOptions>) => async (): Promise<void> => {
  await replayCapture(rt, stream(), summary(), { point, timing: "fast", ...extra });
};
const preparer = new FramePreparer(true, () => ({ src: 1, dst: 2 }));

const bench = new Bench({ time: 500, warmupTime: 100 });
bench
  .add("baseline: convert 1000 records only", () => {
    for (const r of records) if (!preparer.prepare(r.linkType, r.data).ok) throw new Error("unparsed");
  })
  .add("replay 1000, no traces", replay({ tracesPerReason: 0 }))
  .add("replay 1000, 3 traces per reason (hop tracing on)", replay({ tracesPerReason: 3 }))
  .add("replay 1000, traces + recording every interface", replay({ tracesPerReason: 3, record: () => nullWriter }));
await bench.run();

function hz(name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  if (result === undefined || !("period" in result)) throw new Error(`bench task ${name} has no result`);
  return 1000 / result.period;
}
const base = hz("baseline: convert 1000 records only");
console.log("| task | runs/s | packets/s | cost vs baseline |");
console.log("|---|---:|---:|---:|");
for (const t of bench.tasks) {
  const ops = hz(t.name);
  console.log(`| ${t.name} | ${ops.toFixed(1)} | ${(ops * PACKETS).toFixed(0)} | ${(base / ops).toFixed(1)}x |`);
}
