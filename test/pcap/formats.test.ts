// Format coverage of the reader: classic pcap in both byte orders and with micro-, nano-second and
// "modified" magic; pcapng with several sections (both byte orders), interfaces with if_name, if_tsresol
// (powers of 10 and of 2) and if_tsoffset, EPB/SPB/OPB packet blocks and blocks it passes over.
// Expected values follow from the format specifications; tshark reads the same files as a live oracle.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { classicPcap, framesOf, PcapngBytes, swapClassicByteOrder, textOption, byteOption } from "./capture-bytes.js";
import { externalCapture } from "./paths.js";
import { readAll, scratchFile } from "./read-all.js";
import { TSHARK_MISSING, tsharkAvailable, tsharkFields } from "./tshark.js";

const ICMP = externalCapture("zeek-communityid-icmp.pcap");
const FRAMES = framesOf(ICMP, 4);
const frame = (i: number): Uint8Array => FRAMES[i]!;
const ORACLE = JSON.parse(readFileSync(`${ICMP}.tshark.json`, "utf8")) as Record<string, string[]>[];

test("classic pcap: big-endian copies of captures read the same records as the originals", async () => {
  for (const name of ["tcpdump-geneve.pcap", "zeek-communityid-icmp6.pcap"]) {
    const original = await readAll(externalCapture(name));
    const swapped = swapClassicByteOrder(readFileSync(externalCapture(name)));
    assert.equal(swapped[0], 0xa1, "big-endian magic starts with a1");
    const copy = await readAll(scratchFile(`be-${name}`, swapped));
    assert.equal(copy.error, null);
    assert.ok(original.records.length > 10);
    assert.deepEqual(copy.records.map((r) => ({ ...r })), original.records.map((r) => ({ ...r })));
  }
  if (!tsharkAvailable()) return void console.log(`# live tshark check skipped: ${TSHARK_MISSING}`);
  // tshark reads the swapped file exactly as its oracle recorded the original.
  const name = "tcpdump-geneve.pcap";
  const swappedFile = scratchFile(`be-${name}`, swapClassicByteOrder(readFileSync(externalCapture(name))));
  const oracle = JSON.parse(readFileSync(externalCapture(`${name}.tshark.json`), "utf8")) as Record<string, string[]>[];
  const fields = ["frame.time_epoch", "frame.len", "ip.src"] as const;
  assert.deepEqual(
    tsharkFields(swappedFile, fields),
    oracle.map((f) => fields.map((field) => (f[field] ?? []).join(","))),
  );
});

test("classic pcap: nanosecond and modified (Kuznetzov) magic numbers", async () => {
  const nano = scratchFile(
    "nano.pcap",
    classicPcap([{ seconds: 1_700_000_000, fraction: 123_456_789, data: frame(0) }], { magic: 0xa1b23c4d, littleEndian: false }),
  );
  const n = await readAll(nano);
  assert.equal(n.records[0]?.tsNs, 1_700_000_000_123_456_789n);
  assert.deepEqual(n.summary.interfaces[0]?.tsResolution, { base: 10, exponent: 9 });
  const modified = scratchFile(
    "modified.pcap",
    classicPcap(
      [
        { seconds: 5, fraction: 250_000, data: frame(0) },
        { seconds: 6, fraction: 0, data: frame(1) },
      ],
      { magic: 0xa1b2cd34 },
    ),
  );
  const m = await readAll(modified);
  assert.equal(m.error, null);
  assert.deepEqual(m.records.map((r) => [r.tsNs, r.fileOffset, r.caplen]), [
    [5_250_000_000n, 24, frame(0).length],
    [6_000_000_000n, 24 + 24 + frame(0).length, frame(1).length],
  ]);
  assert.deepEqual(m.records[1]?.data, frame(1));
  if (!tsharkAvailable()) return void console.log(`# live tshark check skipped: ${TSHARK_MISSING}`);
  assert.deepEqual(tsharkFields(nano, ["frame.time_epoch"]), [["1700000000.123456789"]]);
});

test("pcapng: two sections in different byte orders, per-interface link types, names and resolutions", async () => {
  const b = new PcapngBytes(true);
  b.shb([textOption(4, "section one")]);
  b.idb(1, 262144, [textOption(2, "eth0"), byteOption(9, 3)]); // milliseconds
  b.idb(1, 262144, [textOption(2, "pow2"), byteOption(9, 0x80 | 20)]); // 2^-20 s
  const firstEpb = b.epb(0, 1_700_000_000_250n, frame(0)); // 1_700_000_000.250 s
  b.epb(1, 3n * 2n ** 20n + 2n ** 19n, frame(1)); // 3.5 s
  b.other(5, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // an Interface Statistics Block: passed over
  b.other(0x0000_0bad, [1, 2, 3, 4, 9, 9, 9, 9]); // a custom block
  b.other(0x7777, [1, 2, 3, 4]); // a type nobody defined
  b.shb([], false); // section two, big-endian
  b.idb(101, 65535, [textOption(2, "tun0"), byteOption(9, 9), [14, Uint8Array.of(0, 0, 0, 0, 0, 0, 0x03, 0xe8)]]);
  const rawIp = frame(2).subarray(14); // the same ICMP packet without its Ethernet header
  b.epb(0, 42n, rawIp); // 1000 s offset + 42 ns
  const file = scratchFile("sections.pcapng", b.toUint8Array());

  const { records, summary, error } = await readAll(file);
  assert.equal(error, null);
  assert.equal(summary.format, "pcapng");
  assert.deepEqual(
    summary.interfaces.map((i) => [i.id, i.section, i.idInSection, i.linkType, i.name, i.tsResolution.base, i.tsResolution.exponent]),
    [
      [0, 0, 0, 1, "eth0", 10, 3],
      [1, 0, 1, 1, "pow2", 2, 20],
      [2, 1, 0, 101, "tun0", 10, 9],
    ],
  );
  assert.equal(summary.interfaces[2]?.tsOffsetSeconds, 1000n);
  assert.deepEqual(
    records.map((r) => [r.index, r.interfaceId, r.linkType, r.tsNs, r.caplen]),
    [
      [1, 0, 1, 1_700_000_000_250_000_000n, frame(0).length],
      [2, 1, 1, 3_500_000_000n, frame(1).length],
      [3, 2, 101, 1_000_000_000_042n, rawIp.length],
    ],
  );
  assert.equal(records[0]?.fileOffset, firstEpb);
  assert.deepEqual(records[2]?.data, rawIp);
  assert.deepEqual(summary.otherBlocks, { ISB: 1, CB: 1, "unknown 0x00007777": 1 });
  assert.equal(summary.skipped.length, 0);

  if (!tsharkAvailable()) return void console.log(`# live tshark check skipped: ${TSHARK_MISSING}`);
  // tshark also lists the custom block as a frame of its own (no interface); we count it instead.
  const rows = tsharkFields(file, ["frame.time_epoch", "frame.interface_name", "frame.cap_len", "ip.src"]).filter((row) => row[0] !== "");
  const src = ORACLE.map((f) => f["ip.src"]?.[0]);
  // tshark 4.0 names interface 0 of the *first* section for the second section's packet, although it takes
  // that packet's link type, resolution and offset from the second section's IDB (pcapng: interface ids are
  // per section); so the name is not compared there.
  assert.deepEqual(rows.map((row, i) => (i === 2 ? [row[0], row[2], row[3]] : row)), [
    ["1700000000.250000000", "eth0", String(frame(0).length), src[0]],
    ["3.500000000", "pow2", String(frame(1).length), src[1]],
    ["1000.000000042", String(rawIp.length), src[2]],
  ]);
});

test("pcapng: Simple Packet Blocks take interface 0's snaplen; Obsolete Packet Blocks carry a 16-bit interface id", async () => {
  const b = new PcapngBytes(false);
  b.shb();
  b.idb(1, 60, [textOption(2, "cut")]);
  b.idb(1, 0, [textOption(2, "whole")]);
  b.spb(frame(0).subarray(0, 60), frame(0).length); // stored cut to the snaplen, original length kept
  b.spb(frame(1).subarray(0, 50), 50);
  b.opb(1, 2_000_000n, frame(2)); // default resolution: microseconds
  const file = scratchFile("spb-opb.pcapng", b.toUint8Array());
  const { records, error } = await readAll(file);
  assert.equal(error, null);
  assert.deepEqual(
    records.map((r) => [r.interfaceId, r.tsNs, r.caplen, r.len]),
    [
      [0, 0n, 60, frame(0).length],
      [0, 0n, 50, 50],
      [1, 2_000_000_000n, frame(2).length, frame(2).length],
    ],
  );
  assert.deepEqual(records[0]?.data, frame(0).subarray(0, 60));
  if (!tsharkAvailable()) return void console.log(`# live tshark check skipped: ${TSHARK_MISSING}`);
  assert.deepEqual(tsharkFields(file, ["frame.cap_len", "frame.len"]), [
    ["60", String(frame(0).length)],
    ["50", "50"],
    [String(frame(2).length), String(frame(2).length)],
  ]);
});
