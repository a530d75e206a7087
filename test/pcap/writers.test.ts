// Writers: classic pcap (us/ns, both byte orders) and pcapng round trips give back byte-identical records;
// rewriting a tcpdump file with its own parameters reproduces it byte for byte; tshark reads our files
// with the same decode as the originals; writers cut at the snaplen, respect backpressure, reject bad input.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { test } from "node:test";
import { CaptureError } from "../../src/pcap/errors.js";
import { PcapWriter } from "../../src/pcap/pcap-writer.js";
import { PcapngWriter } from "../../src/pcap/pcapng-writer.js";
import type { CaptureRecord } from "../../src/pcap/types.js";
import { framesOf } from "./capture-bytes.js";
import { externalCapture, scratchDir } from "./paths.js";
import { readAll } from "./read-all.js";
import { TSHARK_MISSING, tsharkAvailable, tsharkFields } from "./tshark.js";

const SOURCES = ["tcpdump-vxlan.pcap", "tcpdump-geneve.pcap", "zeek-communityid-icmp6.pcap", "zeek-pcapng-multi-interface.pcapng"];
const dir = scratchDir();

const essentials = (r: CaptureRecord): unknown[] => [r.index, r.linkType, r.tsNs, r.caplen, r.len, Buffer.from(r.data).toString("hex")];

async function writeAllFormats(source: string): Promise<{ records: CaptureRecord[]; files: Record<string, string> }> {
  const { records, summary } = await readAll(externalCapture(source));
  const linkType = summary.interfaces[0]!.linkType;
  const files: Record<string, string> = {};
  for (const [label, options] of [
    ["us-le.pcap", { linkType, resolution: "us", byteOrder: "little" }],
    ["ns-be.pcap", { linkType, resolution: "ns", byteOrder: "big" }],
  ] as const) {
    files[label] = path.join(dir, `${source}.${label}`);
    const writer = PcapWriter.toFile(files[label], options);
    for (const r of records) if (!writer.write(r)) await writer.drain();
    await writer.close();
  }
  for (const byteOrder of ["little", "big"] as const) {
    const label = `${byteOrder}.pcapng`;
    files[label] = path.join(dir, `${source}.${label}`);
    const writer = PcapngWriter.toFile(files[label], {
      byteOrder,
      interfaces: summary.interfaces.map((i) => ({ linkType: i.linkType, name: i.name ?? `if${i.id}`, snaplen: i.snaplen || 262144 })),
    });
    for (const r of records) if (!writer.write({ ...r, interfaceId: r.interfaceId })) await writer.drain();
    await writer.close();
  }
  return { records, files };
}

test("write pcap (us, ns; both byte orders) and pcapng (both byte orders), read back identical records", async () => {
  for (const source of SOURCES) {
    const { records, files } = await writeAllFormats(source);
    assert.ok(records.length > 0);
    for (const [label, file] of Object.entries(files)) {
      const back = await readAll(file);
      assert.equal(back.error, null, `${source} ${label}`);
      // A microsecond file keeps whole microseconds: the pcapng source has nanosecond timestamps.
      const expected = label.startsWith("us-") ? records.map((r) => ({ ...r, tsNs: r.tsNs - (r.tsNs % 1000n) })) : records;
      assert.deepEqual(back.records.map(essentials), expected.map(essentials), `${source} ${label}`);
      if (label.endsWith(".pcapng")) {
        assert.deepEqual(back.records.map((r) => r.interfaceId), records.map((r) => r.interfaceId), `${source} ${label}`);
      }
    }
  }
});

test("rewriting tcpdump's own file with its parameters (us, snaplen 1500, Ethernet) gives the same bytes", async () => {
  const original = readFileSync(externalCapture("tcpdump-vxlan.pcap"));
  const { records } = await readAll(externalCapture("tcpdump-vxlan.pcap"));
  const file = path.join(dir, "rewritten.pcap");
  const writer = PcapWriter.toFile(file, { linkType: 1, snaplen: 1500, resolution: "us" });
  for (const r of records) writer.write(r);
  await writer.close();
  assert.deepEqual(readFileSync(file), original);
});

test("tshark decodes our pcap and pcapng files exactly as it decoded the originals", async (t) => {
  if (!tsharkAvailable()) return t.skip(TSHARK_MISSING);
  const fields = ["frame.time_epoch", "frame.cap_len", "frame.len", "eth.src", "ip.src", "ip.dst", "udp.dstport", "vxlan.vni", "tcp.seq_raw", "icmp.type"];
  const { files } = await writeAllFormats("tcpdump-vxlan.pcap");
  const oracle = JSON.parse(readFileSync(externalCapture("tcpdump-vxlan.pcap.tshark.json"), "utf8")) as Record<string, string[]>[];
  const expected = oracle.map((f) => fields.map((field) => (f[field] ?? []).join(",")));
  for (const label of ["ns-be.pcap", "little.pcapng"]) {
    assert.deepEqual(tsharkFields(files[label]!, fields), expected, label);
  }
});

test("writers cut packets at the snaplen and keep the original length", async () => {
  const [frame] = framesOf(externalCapture("zeek-communityid-tcp.pcap"), 1) as [Uint8Array];
  const pcapFile = path.join(dir, "snap.pcap");
  const pcap = PcapWriter.toFile(pcapFile, { linkType: 1, snaplen: 34 });
  pcap.write({ tsNs: 1n, data: frame });
  await pcap.close();
  const ngFile = path.join(dir, "snap.pcapng");
  const ng = PcapngWriter.toFile(ngFile, { interfaces: [{ linkType: 1, name: "eth0", snaplen: 34 }] });
  ng.write({ interfaceId: 0, tsNs: 1n, data: frame });
  await ng.close();
  for (const file of [pcapFile, ngFile]) {
    const { records } = await readAll(file);
    assert.deepEqual(records.map((r) => [r.caplen, r.len, r.tsNs]), [[34, frame.length, 1n]]);
    assert.deepEqual(records[0]?.data, frame.subarray(0, 34));
  }
});

test("writers respect backpressure: write() returns false on a full stream and drain() waits for it", async () => {
  const chunks: Buffer[] = [];
  const slow = new Writable({
    highWaterMark: 256,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  const writer = PcapngWriter.toStream(slow, { interfaces: [{ linkType: 1 }] });
  const data = new Uint8Array(200).fill(7);
  let refusals = 0;
  for (let i = 0; i < 50; i++) {
    if (!writer.write({ interfaceId: 0, tsNs: BigInt(i), data })) {
      refusals++;
      await writer.drain();
    }
  }
  await writer.close();
  assert.ok(refusals >= 10, `write() returned false ${refusals} times`);
  const file = path.join(dir, "slow.pcapng");
  writeFileSync(file, Buffer.concat(chunks));
  const { records } = await readAll(file);
  assert.equal(records.length, 50);
  assert.equal(records[49]?.tsNs, 49n);
});

test("writers reject what a file cannot hold, naming the offset", () => {
  const sink = new Writable({ write: (_c, _e, done) => done() });
  const pcap = PcapWriter.toStream(sink, { linkType: 1 }, { endStream: false });
  assert.throws(() => pcap.write({ tsNs: -1n, data: new Uint8Array(10) }), (e: unknown) => e instanceof CaptureError && e.offset === 24);
  assert.throws(() => pcap.write({ tsNs: 1n, data: new Uint8Array(10), len: 5 }), /smaller than the 10 data bytes/);
  assert.throws(() => PcapWriter.toStream(sink, { linkType: 1, snaplen: 0 }), /snaplen 0/);
  const ng = PcapngWriter.toStream(sink, { interfaces: [{ linkType: 1 }] }, { endStream: false });
  assert.throws(() => ng.write({ interfaceId: 1, tsNs: 1n, data: new Uint8Array(10) }), /interface 1 was not added \(have 1\)/);
});
