// SCTP wire layer: CRC32c against RFC 3720 appendix B.4's test vectors (the CRC RFC 4960 appendix B and
// RFC 3309 specify), chunk parse/emit round trips with byte-exact layouts from RFC 4960 section 3, and
// tshark's decode (ports, verification tag, chunk types, checksum status with CRC32c verification on)
// of packets written with our PcapWriter, and dissect agreeing with it.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { setIpv4HeaderChecksum } from "../../src/wire/checksum.js";
import { dissect } from "../../src/wire/dissect.js";
import {
  buildSctpPacket,
  crc32c,
  emitSctpChunk,
  findSctpParam,
  parseSctpChunks,
  parseSctpHeader,
  sctpChunkLength,
  sctpParam,
  SctpChunkType,
  SctpParamType,
  setSctpChecksum,
  verifySctpChecksum,
  type SctpChunkRepr,
} from "../../src/wire/sctp.js";
import { summarize } from "../../src/wire/summary.js";
import { PcapWriter } from "../../src/pcap/index.js";
import { tsharkFields, tsharkMissing } from "../cluster/workloads/tshark.js";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

function tcpdumpMissing(): string | null {
  try {
    execFileSync("tcpdump", ["--version"], { stdio: "ignore" });
    return null;
  } catch {
    return "tcpdump is not installed";
  }
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const fromHex = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s.replace(/\s+/g, ""), "hex"));

describe("CRC32c (RFC 3720 B.4 test vectors)", () => {
  it("32 bytes of zeroes, ones, incrementing and decrementing", () => {
    assert.equal(crc32c(new Uint8Array(32), 0, 32), 0x8a9136aa, "CRC bytes aa 36 91 8a");
    assert.equal(crc32c(new Uint8Array(32).fill(0xff), 0, 32), 0x62a8ab43, "43 ab a8 62");
    const inc = Uint8Array.from({ length: 32 }, (_, i) => i);
    assert.equal(crc32c(inc, 0, 32), 0x46dd794e, "4e 79 dd 46");
    const dec = Uint8Array.from({ length: 32 }, (_, i) => 31 - i);
    assert.equal(crc32c(dec, 0, 32), 0x113fdb5c, "5c db 3f 11");
  });

  it("stored in the checksum field with the CRC's low byte first (the RFC's transmission order)", () => {
    // A 44-byte packet whose bytes after the header are zero: set, then the field reads back in order.
    const p = new Uint8Array(44);
    p.set([0x13, 0x88, 0x00, 0x50, 0, 0, 0, 0], 0);
    setSctpChecksum(p, 0, p.length);
    const copy = p.slice();
    copy.fill(0, 8, 12);
    const crc = crc32c(copy, 0, copy.length);
    assert.deepEqual([...p.subarray(8, 12)], [crc & 0xff, (crc >>> 8) & 0xff, (crc >>> 16) & 0xff, crc >>> 24]);
    assert.equal(verifySctpChecksum(p, 0, p.length), true);
    p[20] = 1;
    assert.equal(verifySctpChecksum(p, 0, p.length), false, "a flipped byte is caught");
  });
});

describe("SCTP chunks (RFC 4960 section 3)", () => {
  const init: SctpChunkRepr = {
    kind: "init",
    initiateTag: 0x01020304,
    aRwnd: 106496,
    outboundStreams: 10,
    inboundStreams: 65535,
    initialTsn: 0x0a0b0c0d,
    params: sctpParam(SctpParamType.SUPPORTED_ADDRESS_TYPES, Uint8Array.of(0, 5)),
  };

  it("INIT: type 1, length without the last parameter's padding, fields in order (3.3.2)", () => {
    const b = new Uint8Array(sctpChunkLength(init));
    assert.equal(emitSctpChunk(init, b, 0), 28);
    // type 1, flags 0, length 26 (20 fixed + 6-byte Supported Address Types parameter), then padding.
    assert.equal(hex(b), "0100001a" + "01020304" + "0001a000" + "000a" + "ffff" + "0a0b0c0d" + "000c0006" + "0005" + "0000");
  });

  it("parse(emit(x)) = x for INIT, INIT ACK with a State Cookie, ABORT, COOKIE ECHO, COOKIE ACK and an unknown chunk", () => {
    const cookie = Uint8Array.from({ length: 21 }, (_, i) => i + 1);
    const chunks: SctpChunkRepr[] = [
      init,
      { ...init, kind: "init-ack", params: sctpParam(SctpParamType.STATE_COOKIE, cookie) },
      { kind: "abort", tBit: true, causes: new Uint8Array(0) },
      { kind: "cookie-echo", cookie },
      { kind: "cookie-ack" },
      { kind: "other", type: 0xc0, flags: 0x05, value: Uint8Array.of(9, 8, 7) },
    ];
    const packet = buildSctpPacket({ srcPort: 5000, dstPort: 80, verificationTag: 0xdeadbeef }, chunks);
    assert.ok(packet.ok);
    const header = parseSctpHeader(packet.value, 0, packet.value.length);
    assert.ok(header.ok);
    assert.deepEqual([header.value.srcPort, header.value.dstPort, header.value.verificationTag], [5000, 80, 0xdeadbeef]);
    assert.equal(verifySctpChecksum(packet.value, 0, packet.value.length), true);
    const parsed = parseSctpChunks(packet.value, 0, packet.value.length);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.value, chunks);
    const ack = parsed.value[1];
    assert.ok(ack?.kind === "init-ack");
    assert.deepEqual(findSctpParam(ack.params, SctpParamType.STATE_COOKIE), cookie);
    assert.equal(packet.value[12 + 28 + 20 + 28 + 1], 0x01, "ABORT's flags: the T bit");
  });

  it("bad input is a typed error naming the field and byte offset", () => {
    const ok = buildSctpPacket({ srcPort: 1, dstPort: 2, verificationTag: 0 }, [init]);
    assert.ok(ok.ok);
    const zeroTag = ok.value.slice();
    zeroTag.fill(0, 16, 20);
    assert.deepEqual(parseSctpChunks(zeroTag, 0, zeroTag.length), { ok: false, error: { layer: "sctp", field: "init.initiate_tag", offset: 16, reason: "initiate tag 0" } });
    const long = ok.value.slice();
    long[15] = 0xff;
    const r = parseSctpChunks(long, 0, long.length);
    assert.ok(!r.ok && r.error.field === "chunk.length" && r.error.offset === 14);
    assert.ok(!parseSctpHeader(new Uint8Array(11), 0, 11).ok);
    assert.ok(!buildSctpPacket({ srcPort: 70000, dstPort: 2, verificationTag: 0 }, []).ok);
  });
});

/** Ethernet + IPv4 around an SCTP packet, as a capture holds it. */
function frame(sctp: Uint8Array): Uint8Array {
  const f = new Uint8Array(14 + 20 + sctp.length);
  f.set(fromHex("020000000002 020000000001 0800"), 0);
  f.set(fromHex("45000000 12344000 4084 0000 0a000001 0a000002"), 14);
  f[16] = (20 + sctp.length) >> 8;
  f[17] = (20 + sctp.length) & 0xff;
  f[22] = 64;
  f[23] = 132;
  setIpv4HeaderChecksum(f, 14, 20);
  f.set(sctp, 34);
  return f;
}

describe("SCTP agrees with tshark", { skip: tsharkMissing() ?? false }, () => {
  it("ports, verification tag, chunk types and CRC32c status of INIT, INIT ACK, ABORT, COOKIE ECHO/ACK; a corrupted checksum is bad", async () => {
    const cookie = Uint8Array.from({ length: 20 }, (_, i) => 0xa0 + i);
    const packets = [
      buildSctpPacket({ srcPort: 40000, dstPort: 9999, verificationTag: 0 }, [{ kind: "init", initiateTag: 0x11223344, aRwnd: 106496, outboundStreams: 10, inboundStreams: 65535, initialTsn: 7, params: new Uint8Array(0) }]),
      buildSctpPacket({ srcPort: 9999, dstPort: 40000, verificationTag: 0x11223344 }, [{ kind: "init-ack", initiateTag: 0x55667788, aRwnd: 106496, outboundStreams: 10, inboundStreams: 65535, initialTsn: 9, params: sctpParam(SctpParamType.STATE_COOKIE, cookie) }]),
      buildSctpPacket({ srcPort: 40000, dstPort: 9999, verificationTag: 0x55667788 }, [{ kind: "cookie-echo", cookie }]),
      buildSctpPacket({ srcPort: 9999, dstPort: 40000, verificationTag: 0x11223344 }, [{ kind: "cookie-ack" }]),
      buildSctpPacket({ srcPort: 9999, dstPort: 40000, verificationTag: 0x11223344 }, [{ kind: "abort", tBit: false, causes: new Uint8Array(0) }]),
    ].map((p) => {
      assert.ok(p.ok);
      return frame(p.value);
    });
    const bad = packets[0]!.slice();
    bad[34 + 8] = bad[34 + 8]! ^ 0xff;
    const frames = [...packets, bad];
    const rows = await tsharkFields(frames, ["sctp.srcport", "sctp.dstport", "sctp.verification_tag", "sctp.chunk_type", "sctp.checksum.status", "sctp.abort_t_bit"], ["-o", "sctp.checksum:CRC 32c"]);
    assert.deepEqual(
      rows.map((r) => r.slice(0, 5)),
      [
        ["40000", "9999", "0x00000000", "1", "1"],
        ["9999", "40000", "0x11223344", "2", "1"],
        ["40000", "9999", "0x55667788", "10", "1"],
        ["9999", "40000", "0x11223344", "11", "1"],
        ["9999", "40000", "0x11223344", "6", "1"],
        ["40000", "9999", "0x00000000", "1", "0"],
      ],
    );
    assert.equal(rows[4]![5], "0", "ABORT with the T bit clear");
    // dissect says the same.
    const ours = frames.map((f) => dissect(f, 1).find((l) => l.proto === "sctp"));
    assert.deepEqual(
      ours.map((l) => (l?.proto === "sctp" ? [String(l.srcPort), String(l.dstPort), `0x${l.vtag.toString(16).padStart(8, "0")}`, l.chunks.join(","), l.checksumOk ? "1" : "0"] : null)),
      rows.map((r) => r.slice(0, 5)),
    );
  });
});

describe("SCTP summary agrees with tcpdump", { skip: tcpdumpMissing() ?? false }, () => {
  it("each line is tcpdump's, up to the INIT parameters tcpdump adds", async () => {
    const cookie = new Uint8Array(20);
    const packets = [
      buildSctpPacket({ srcPort: 40000, dstPort: 9999, verificationTag: 0 }, [{ kind: "init", initiateTag: 0x11223344, aRwnd: 106496, outboundStreams: 10, inboundStreams: 65535, initialTsn: 7, params: new Uint8Array(0) }]),
      buildSctpPacket({ srcPort: 9999, dstPort: 40000, verificationTag: 0x11223344 }, [{ kind: "init-ack", initiateTag: 0x55667788, aRwnd: 106496, outboundStreams: 10, inboundStreams: 65535, initialTsn: 9, params: sctpParam(SctpParamType.STATE_COOKIE, cookie) }]),
      buildSctpPacket({ srcPort: 40000, dstPort: 9999, verificationTag: 0x55667788 }, [{ kind: "cookie-echo", cookie }]),
      buildSctpPacket({ srcPort: 9999, dstPort: 40000, verificationTag: 0x11223344 }, [{ kind: "cookie-ack" }]),
      buildSctpPacket({ srcPort: 9999, dstPort: 40000, verificationTag: 0x11223344 }, [{ kind: "abort", tBit: true, causes: new Uint8Array(0) }]),
    ].map((p) => {
      assert.ok(p.ok);
      return frame(p.value);
    });
    const dir = mkdtempSync(join(tmpdir(), "cnisim-sctp-"));
    try {
      const file = join(dir, "sctp.pcap");
      const w = PcapWriter.toFile(file, { linkType: 1 });
      packets.forEach((f, i) => w.write({ tsNs: BigInt(i) * 1000n, data: f }));
      await w.close();
      const lines = execFileSync("tcpdump", ["-n", "-t", "-r", file], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trimEnd().split("\n");
      assert.equal(lines.length, packets.length);
      packets.forEach((f, i) => {
        const ours = summarize(dissect(f, 1));
        assert.ok(lines[i]!.startsWith(ours), `${ours}\n${lines[i]}`);
        assert.match(ours, /sctp \(1\) \[[A-Z ]+\]$/);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
