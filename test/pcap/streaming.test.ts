// Streaming: a capture many times larger than the reader's buffer is read with bounded memory. A child
// process reads it and measures live memory after forced GCs (no timing involved).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { PcapWriter } from "../../src/pcap/pcap-writer.js";
import { PcapngWriter } from "../../src/pcap/pcapng-writer.js";
import { scratchDir } from "./paths.js";

const PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), "memory-probe.js");
const RECORDS = 12_000;
const FRAME = new Uint8Array(1400).map((_, i) => i & 0xff);

type Probe = { records: number; bytes: number; growth: number; bufferCapacity: number };

function probe(file: string): Probe {
  const run = spawnSync(process.execPath, ["--expose-gc", PROBE, file], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Probe;
}

test("a 17 MB classic pcap and pcapng are read with memory bounded by the read buffer, not the file", async () => {
  const dir = scratchDir();
  const pcapFile = path.join(dir, "big.pcap");
  const pcap = PcapWriter.toFile(pcapFile, { linkType: 1 });
  const ngFile = path.join(dir, "big.pcapng");
  const ng = PcapngWriter.toFile(ngFile, { interfaces: [{ linkType: 1, name: "eth0" }] });
  for (let i = 0; i < RECORDS; i++) {
    const tsNs = 1_000_000_000n * BigInt(i);
    if (!pcap.write({ tsNs, data: FRAME })) await pcap.drain();
    if (!ng.write({ interfaceId: 0, tsNs, data: FRAME })) await ng.drain();
  }
  await pcap.close();
  await ng.close();
  for (const file of [pcapFile, ngFile]) {
    const size = statSync(file).size;
    assert.ok(size > 16_000_000, `${file} is ${size} bytes`);
    const result = probe(file);
    assert.equal(result.records, RECORDS);
    assert.equal(result.bytes, RECORDS * FRAME.length);
    assert.ok(result.bufferCapacity <= 128 * 1024, `read buffer ${result.bufferCapacity} bytes`);
    // Holding the file (or the records) would cost at least its size; the reader needs its buffer and change.
    assert.ok(result.growth < size / 8, `live memory grew by ${result.growth} bytes for a ${size}-byte file`);
  }
});
