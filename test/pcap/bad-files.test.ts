// Bad capture files: each gives a CaptureError with the byte offset of the problem in strict mode, and in
// lenient mode a skipped entry (reading goes on where the format allows resynchronising, else it stops
// and says so). Nothing is dropped without a summary entry.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { CaptureOpenError } from "../../src/pcap/errors.js";
import { classicPcap, framesOf, PcapngBytes, textOption } from "./capture-bytes.js";
import { externalCapture } from "./paths.js";
import { readAll, scratchFile } from "./read-all.js";
import { TSHARK_MISSING, tsharkAvailable, tsharkRead } from "./tshark.js";

const ICMP = externalCapture("zeek-communityid-icmp.pcap");
const [FRAME_A, FRAME_B] = framesOf(ICMP, 2) as [Uint8Array, Uint8Array];

test("corrupt pcapng (SHB option longer than its block): error at the option, as tshark reports", async () => {
  const file = externalCapture("libpcap-shb-option-too-long.pcapng");
  const oracle = JSON.parse(readFileSync(`${file}.tshark.json`, "utf8")) as { tsharkError: string; framesBeforeError: unknown[] };
  // tshark: "(pcapng: Not enough data to handle option of length 12336)" and no frames.
  assert.match(oracle.tsharkError, /option of length 12336/);
  assert.equal(oracle.framesBeforeError.length, 0);

  const strict = await readAll(file);
  assert.equal(strict.records.length, 0);
  assert.ok(strict.error);
  // The SHB body starts at 8; after magic, version and section length the first option sits at 24.
  assert.equal(strict.error.offset, 24);
  assert.match(strict.error.reason, /SHB option code 12336 has length 12336, overrunning its block/);
  assert.equal(strict.error.file, file);

  const lenient = await readAll(file, { lenient: true });
  assert.equal(lenient.error, null);
  assert.equal(lenient.records.length, 0);
  assert.deepEqual(lenient.summary.skipped.map((s) => [s.index, s.offset]), [[0, 24]]);
  // The block's trailing length (0x30303030) does not match its leading 52 either: no way to resynchronise.
  assert.equal(lenient.summary.stopped?.offset, 24);
  assert.match(lenient.summary.stopped?.reason ?? "", /cannot resynchronise/);
});

test("classic pcap cut 10 bytes short: strict stops at the last record, lenient counts it as skipped", async () => {
  const whole = readFileSync(externalCapture("tcpdump-vxlan.pcap"));
  const oracle = JSON.parse(readFileSync(externalCapture("tcpdump-vxlan.pcap.tshark.json"), "utf8")) as Record<string, string[]>[];
  const lastCaplen = Number(oracle[9]?.["frame.cap_len"]?.[0]);
  const lastRecordOffset = whole.length - 16 - lastCaplen;
  const file = scratchFile("vxlan-truncated.pcap", whole.subarray(0, whole.length - 10));

  const strict = await readAll(file);
  assert.equal(strict.records.length, 9);
  assert.equal(strict.error?.offset, lastRecordOffset);
  assert.equal(strict.error?.reason, `truncated record: caplen ${lastCaplen} but only ${lastCaplen - 10} data bytes before end of file`);

  const lenient = await readAll(file, { lenient: true });
  assert.equal(lenient.error, null);
  assert.equal(lenient.records.length, 9);
  assert.equal(lenient.summary.read, 10);
  assert.equal(lenient.summary.decoded, 9);
  assert.deepEqual(lenient.summary.skipped.map((s) => [s.index, s.offset]), [[10, lastRecordOffset]]);
  assert.equal(lenient.summary.stopped, null);

  if (!tsharkAvailable()) return void console.log(`# live tshark check skipped: ${TSHARK_MISSING}`);
  const tshark = tsharkRead(file);
  assert.match(tshark.stderr, /cut short in the middle of a packet/);
});

test("wrong magic, empty file, gzip file, missing file: errors at offset 0", async () => {
  const cases: [string, Uint8Array, RegExp][] = [
    ["text.pcap", new TextEncoder().encode("this is not a capture\n"), /unknown magic number 0x73696874/],
    ["empty.pcap", new Uint8Array(0), /empty file/],
    ["short.pcap", Uint8Array.of(0xd4, 0xc3), /too short/],
    ["zipped.pcap.gz", Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0), /gzip/],
  ];
  for (const [name, bytes, reason] of cases) {
    const strict = await readAll(scratchFile(name, bytes));
    assert.equal(strict.error?.offset, 0, name);
    assert.match(strict.error?.reason ?? "", reason, name);
    const lenient = await readAll(scratchFile(name, bytes), { lenient: true });
    assert.equal(lenient.error, null, name);
    assert.match(lenient.summary.stopped?.reason ?? "", reason, name);
  }
  const missing = await readAll("/nonexistent/cnisim/capture.pcap");
  assert.ok(missing.error instanceof CaptureOpenError);
  assert.equal(missing.error.reason, "cannot open: no such file");
});

test("classic pcap: caplen over the snaplen is skippable, an absurd caplen stops the lenient reader", async () => {
  const longer = Uint8Array.from([...FRAME_B, 0, 0, 0, 0]);
  const overSnaplen = classicPcap(
    [
      { seconds: 1, fraction: 0, data: FRAME_A },
      { seconds: 2, fraction: 0, data: longer },
      { seconds: 3, fraction: 0, data: FRAME_A },
    ],
    { snaplen: FRAME_A.length },
  );
  const second = 24 + 16 + FRAME_A.length;
  const file = scratchFile("over-snaplen.pcap", overSnaplen);
  const strict = await readAll(file);
  assert.equal(strict.records.length, 1);
  assert.equal(strict.error?.offset, second);
  assert.match(strict.error?.reason ?? "", new RegExp(`caplen ${longer.length} exceeds the file snaplen ${FRAME_A.length}`));
  const lenient = await readAll(file, { lenient: true });
  assert.deepEqual(lenient.records.map((r) => r.index), [1, 3]);
  assert.deepEqual(lenient.summary.skipped.map((s) => [s.index, s.offset]), [[2, second]]);
  assert.equal(lenient.summary.read, 3);
  assert.equal(lenient.summary.decoded, 2);

  const absurd = classicPcap([
    { seconds: 1, fraction: 0, data: FRAME_A },
    { seconds: 2, fraction: 0, data: FRAME_B, caplen: 0x40000000 },
    { seconds: 3, fraction: 0, data: FRAME_A },
  ]);
  const absurdFile = scratchFile("absurd.pcap", absurd);
  const strictAbsurd = await readAll(absurdFile);
  assert.equal(strictAbsurd.records.length, 1);
  assert.equal(strictAbsurd.error?.offset, second);
  assert.match(strictAbsurd.error?.reason ?? "", /caplen 1073741824 is absurd/);
  const lenientAbsurd = await readAll(absurdFile, { lenient: true });
  assert.equal(lenientAbsurd.records.length, 1);
  assert.equal(lenientAbsurd.summary.stopped?.offset, second);
  assert.match(lenientAbsurd.summary.stopped?.reason ?? "", /cannot resynchronise/);

  const longerThanWire = classicPcap([{ seconds: 1, fraction: 0, data: FRAME_A, len: FRAME_A.length - 4 }]);
  const wire = await readAll(scratchFile("caplen-over-len.pcap", longerThanWire));
  assert.equal(wire.error?.offset, 24);
  assert.match(wire.error?.reason ?? "", /exceeds its original length/);
});

test("pcapng: block length mismatch stops; bad option, unknown interface and oversized caplen are skippable", async () => {
  const b = new PcapngBytes();
  b.shb();
  const idb = b.idb(1, 65535, [[2, Uint8Array.of(0x65, 0x74, 0x68)]]);
  b.epb(0, 1_000_000n, FRAME_A);
  const unknownIf = b.epb(7, 2_000_000n, FRAME_B);
  b.epb(0, 3_000_000n, FRAME_A);
  const bytes = b.toUint8Array();
  // Corrupt the IDB's only option length so that it runs past the block (trailer still correct).
  new DataView(bytes.buffer).setUint16(idb + 16 + 2, 200, true);
  const file = scratchFile("bad-blocks.pcapng", bytes);

  const strict = await readAll(file);
  assert.equal(strict.records.length, 0);
  assert.equal(strict.error?.offset, idb + 16);
  assert.match(strict.error?.reason ?? "", /IDB option code 2 has length 200, overrunning its block/);

  const lenient = await readAll(file, { lenient: true });
  assert.deepEqual(lenient.records.map((r) => r.index), [1, 3]);
  assert.deepEqual(
    lenient.summary.skipped.map((s) => [s.index, s.offset]),
    [[0, idb + 16], [2, unknownIf + 8]],
  );
  assert.match(lenient.summary.skipped[1]?.reason ?? "", /EPB refers to interface 7 but section 0 has 1/);
  assert.equal(lenient.summary.interfaces.length, 1, "the IDB with a bad option still defines interface 0");
  assert.equal(lenient.summary.stopped, null);

  const mismatch = new PcapngBytes();
  mismatch.shb();
  mismatch.idb(1, 0);
  const epb = mismatch.epb(0, 1n, FRAME_A);
  mismatch.epb(0, 2n, FRAME_B);
  const mismatched = mismatch.toUint8Array();
  const epbLength = new DataView(mismatched.buffer).getUint32(epb + 4, true);
  new DataView(mismatched.buffer).setUint32(epb + epbLength - 4, epbLength + 4, true);
  const mismatchFile = scratchFile("mismatch.pcapng", mismatched);
  const strictMismatch = await readAll(mismatchFile);
  assert.equal(strictMismatch.records.length, 0);
  assert.equal(strictMismatch.error?.offset, epb + epbLength - 4);
  assert.match(strictMismatch.error?.reason ?? "", new RegExp(`trailing length ${epbLength + 4} differs from leading length ${epbLength}`));
  const lenientMismatch = await readAll(mismatchFile, { lenient: true });
  assert.equal(lenientMismatch.records.length, 0);
  assert.equal(lenientMismatch.summary.stopped?.offset, epb + epbLength - 4);

  const snap = new PcapngBytes();
  snap.shb();
  snap.idb(1, 40);
  const big = snap.epb(0, 1n, FRAME_A);
  const snapFile = scratchFile("epb-over-snaplen.pcapng", snap.toUint8Array());
  const strictSnap = await readAll(snapFile);
  assert.equal(strictSnap.error?.offset, big);
  assert.match(strictSnap.error?.reason ?? "", new RegExp(`EPB: caplen ${FRAME_A.length} exceeds the interface snaplen 40`));
});

test("pcapng cut short inside a block, and a first block that is not a section header", async () => {
  const b = new PcapngBytes();
  b.shb([textOption(4, "cnisim test")]);
  b.idb(1, 0);
  b.epb(0, 1n, FRAME_A);
  const last = b.epb(0, 2n, FRAME_B);
  const whole = b.toUint8Array();
  const file = scratchFile("cut.pcapng", whole.subarray(0, whole.length - 6));
  const strict = await readAll(file);
  assert.equal(strict.records.length, 1);
  assert.equal(strict.error?.offset, last);
  assert.match(strict.error?.reason ?? "", /truncated EPB block/);
  const lenient = await readAll(file, { lenient: true });
  assert.equal(lenient.records.length, 1);
  assert.deepEqual(lenient.summary.skipped.map((s) => [s.index, s.offset]), [[2, last]]);

  const noShb = scratchFile("no-shb.pcapng", Uint8Array.of(0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0, 0x11, 0x22, 0x33, 0x44));
  const bad = await readAll(noShb);
  assert.equal(bad.error?.offset, 8);
  assert.match(bad.error?.reason ?? "", /byte-order magic/);
});
