import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checksumReplace16,
  checksumReplace32,
  internetChecksum,
  knownZeros,
  onesSum,
  rememberZeroSum,
  resetSumMemo,
  IPPROTO_ICMPV6,
  IPPROTO_TCP,
  IPPROTO_UDP,
  setIpv4HeaderChecksum,
  setL4ChecksumV4,
  setL4ChecksumV6,
  udpChecksumReplace16,
  verifyIpv4HeaderChecksum,
  verifyL4ChecksumV4,
  verifyL4ChecksumV6,
} from "../../src/wire/checksum.js";
import { read16, read32, write16 } from "../../src/wire/bytes.js";
import { CRAFTED } from "./crafted-frames.js";
import { hex, readClassicPcap, sharedPath } from "./fixtures.js";

test("RFC 1071 section 3 example: words 0001 f203 f4f5 f6f7 sum to ddf2, checksum 220d", () => {
  const bytes = hex("0001f203f4f5f6f7");
  assert.equal(internetChecksum(bytes, 0, bytes.length), 0x220d);
  // Odd length: the last byte is padded with a zero byte.
  assert.equal(internetChecksum(hex("01"), 0, 1), ~0x0100 & 0xffff);
});

test("RFC 1624 section 4 example: HC 0xdd2f, m 0x5555 -> 0x3285 gives 0x0000 (eqn. 3), like a full recompute", () => {
  assert.equal(checksumReplace16(0xdd2f, 0x5555, 0x3285), 0x0000);
  // Full recompute from the sum of the other octets (0xcd7a), as the RFC shows.
  assert.equal(~(0xcd7a + 0x3285) & 0xffff, 0x0000);
});

test("IPv4 header checksum: tshark-good headers verify, a corrupted one does not, and fill restores the bytes", () => {
  const good = CRAFTED.tcpSackUnknown; // tshark: ip.checksum.status 1
  assert.equal(verifyIpv4HeaderChecksum(good, 14, 20), true);
  assert.equal(verifyIpv4HeaderChecksum(CRAFTED.ipv4BadHeaderChecksum, 14, 20), false); // tshark: 0
  const copy = good.slice();
  write16(copy, 24, 0);
  assert.equal(setIpv4HeaderChecksum(copy, 14, 20), read16(good, 24));
  assert.deepEqual(copy, good);
  // With options (IHL 6, router alert): tshark status 1.
  assert.equal(verifyIpv4HeaderChecksum(CRAFTED.qinqIpv4OptUdp, 22, 24), true);
});

test("L4 checksums over IPv4 pseudo-header agree with tshark (good TCP, good UDP, bad UDP, ICMP)", () => {
  const tcp = CRAFTED.tcpSackUnknown;
  assert.equal(verifyL4ChecksumV4(tcp, 34, 53, IPPROTO_TCP, read32(tcp, 26), read32(tcp, 30)), true);
  const badUdp = CRAFTED.udpBadChecksum;
  assert.equal(verifyL4ChecksumV4(badUdp, 34, 11, IPPROTO_UDP, read32(badUdp, 26), read32(badUdp, 30)), false);
  const zeroUdp = CRAFTED.udpZeroChecksum; // 0 = not computed: acceptable over IPv4
  assert.equal(verifyL4ChecksumV4(zeroUdp, 34, 11, IPPROTO_UDP, read32(zeroUdp, 26), read32(zeroUdp, 30)), true);
  const icmp = CRAFTED.icmpUnreachQuote; // tshark icmp.checksum.status 1 (no pseudo-header)
  assert.equal(verifyL4ChecksumV4(icmp, 34, 36, 1, 0, 0), true);
  // Refill from zero gives back the sender's bytes.
  const copy = tcp.slice();
  write16(copy, 34 + 16, 0);
  setL4ChecksumV4(copy, 34, 53, IPPROTO_TCP, read32(tcp, 26), read32(tcp, 30));
  assert.deepEqual(copy, tcp);
});

test("L4 checksums over the IPv6 pseudo-header: TCP after an extension chain, UDP (SLL2), every ICMPv6 of a real capture", () => {
  const f = CRAFTED.ipv6ExtAhTcp; // TCP at 14 + 40 + 8 + 8 + 8 + 24 = 102, 40 bytes; tshark tcp.checksum.status 1
  assert.equal(verifyL4ChecksumV6(f, 102, 40, IPPROTO_TCP, f, 22, f, 38), true);
  const s = CRAFTED.sll2; // IPv6 at 20, UDP at 60, 13 bytes; tshark 1
  assert.equal(verifyL4ChecksumV6(s, 60, 13, IPPROTO_UDP, s, 28, s, 44), true);
  const copy = s.slice();
  write16(copy, 66, 0);
  setL4ChecksumV6(copy, 60, 13, IPPROTO_UDP, copy, 28, copy, 44);
  assert.deepEqual(copy, s);
  const { frames } = readClassicPcap(sharedPath("pcaps/external/zeek-communityid-icmp6.pcap"));
  for (const frame of frames) {
    const length = read16(frame, 18); // tshark: all 49 icmpv6.checksum.status 1 (no extension headers here)
    assert.equal(verifyL4ChecksumV6(frame, 54, length, IPPROTO_ICMPV6, frame, 22, frame, 38), true);
    const flipped = frame.slice();
    flipped[frame.length - 1]! ^= 0x01;
    assert.equal(verifyL4ChecksumV6(flipped, 54, length, IPPROTO_ICMPV6, flipped, 22, flipped, 38), false);
  }
});

test("a UDP checksum that computes to 0 is sent as 0xffff, by full fill and by incremental update", () => {
  const frame = CRAFTED.udpBadChecksum.slice();
  const src = read32(frame, 26);
  const dst = read32(frame, 30);
  setL4ChecksumV4(frame, 34, 11, IPPROTO_UDP, src, dst);
  const before = read16(frame, 40);
  let found = -1;
  for (let port = 0; port < 0x10000 && found < 0; port++) {
    const probe = frame.slice();
    write16(probe, 36, port);
    if (setL4ChecksumV4(probe, 34, 11, IPPROTO_UDP, src, dst) === 0xffff) found = port;
  }
  assert.ok(found >= 0, "some destination port makes the one's complement sum all ones");
  assert.equal(udpChecksumReplace16(before, read16(frame, 36), found), 0xffff);
  assert.equal(checksumReplace16(before, read16(frame, 36), found), 0x0000); // the raw RFC 1624 value
  const probe = frame.slice();
  write16(probe, 36, found);
  write16(probe, 40, 0xffff);
  assert.equal(verifyL4ChecksumV4(probe, 34, 11, IPPROTO_UDP, src, dst), true);
});

test("property: RFC 1624 update of any 32-bit word (two 16-bit steps) equals a full recompute (seeded, 1000 runs)", () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 8, maxLength: 64 }).filter((b) => b.length % 2 === 0 && b.some((x) => x !== 0)),
      fc.nat(),
      fc.integer({ min: 0, max: 0xffffffff }),
      (data, at, value) => {
        const bytes = data.slice();
        const pos = (at % (bytes.length / 2 - 1)) * 2;
        const check = internetChecksum(bytes, 0, bytes.length);
        const old32 = read32(bytes, pos);
        const updated32 = checksumReplace32(check, old32, value);
        bytes[pos] = value >>> 24;
        bytes[pos + 1] = (value >>> 16) & 255;
        bytes[pos + 2] = (value >>> 8) & 255;
        bytes[pos + 3] = value & 255;
        if (bytes.every((x) => x === 0)) return; // all-zero data: the one case with two zero encodings
        assert.equal(updated32, internetChecksum(bytes, 0, bytes.length));
      },
    ),
    { seed: 1624, numRuns: 1000 },
  );
});

test("property: onesSum over any range (odd starts and ends included) equals the word-by-word RFC 1071 sum (seeded, 1000 runs)", () => {
  const wordByWord = (b: Uint8Array, start: number, end: number, acc: number): number => {
    for (let i = start; i < end; i += 2) acc += (b[i]! << 8) | (i + 1 < end ? b[i + 1]! : 0);
    return acc;
  };
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.nat(), fc.nat(), fc.nat({ max: 0xffffff }), (bytes, a, b, acc) => {
      const start = bytes.length === 0 ? 0 : a % (bytes.length + 1);
      const end = start + (bytes.length - start === 0 ? 0 : b % (bytes.length - start + 1));
      assert.equal(onesSum(bytes, start, end, acc), wordByWord(bytes, start, end, acc));
    }),
    { seed: 1071, numRuns: 1000 },
  );
});

test("remembered payload sums (resetSumMemo, rememberZeroSum) give the checksums a fresh sum gives", () => {
  const fresh = (b: Uint8Array, s: number, e: number, init: number): number => ~foldSumOf(b, s, e, init) & 0xffff;
  const foldSumOf = (b: Uint8Array, s: number, e: number, init: number): number => {
    let acc = onesSum(b, s, e, init);
    while (acc > 0xffff) acc = (acc & 0xffff) + Math.floor(acc / 0x10000);
    return acc;
  };
  const b = new Uint8Array(new ArrayBuffer(12000), 0, 11000);
  for (let i = 0; i < b.length; i++) b[i] = (i * 7 + 3) & 0xff;
  resetSumMemo(b.buffer);
  assert.equal(internetChecksum(b, 128, 11000, 5), fresh(b, 128, 11000, 5));
  b[130] = b[130]! ^ 0xff; // a header rewrite inside the lead
  assert.equal(internetChecksum(b, 128, 11000, 5), fresh(b, 128, 11000, 5));
  assert.equal(internetChecksum(b, 77, 11000, 9), fresh(b, 77, 11000, 9), "an outer header's range, starting at an odd distance");
  b.fill(0, 300, 11000);
  rememberZeroSum(b, 300, 11000);
  assert.equal(internetChecksum(b, 128, 11000, 0), fresh(b, 128, 11000, 0));
  assert.equal(knownZeros(b, 400, 11000), true);
  assert.equal(knownZeros(b, 200, 11000), false, "reaches before the remembered zeros");
  b.fill(0, 0, 11000);
  rememberZeroSum(b, 300, 11000);
  assert.equal(internetChecksum(b, 128, 11000, 0), 0xffff, "all zeros stays the +0 checksum");
});

test("sums over a buffer with a memo (read through its one word view) equal fresh sums at every alignment, also after its bytes change", () => {
  const fresh = (b: Uint8Array, s: number, e: number, init: number): number => {
    let acc = onesSum(b, s, e, init);
    while (acc > 0xffff) acc = (acc & 0xffff) + Math.floor(acc / 0x10000);
    return ~acc & 0xffff;
  };
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 1500 }), fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 0xffff }), (shift, start, span, init) => {
      const ab = new ArrayBuffer(5000);
      resetSumMemo(ab);
      const b = new Uint8Array(ab, shift, 4000);
      for (let i = 0; i < b.length; i++) b[i] = (i * 13 + shift) & 0xff;
      const end = Math.min(b.length, start + span);
      assert.equal(internetChecksum(b, start, end, init), fresh(b, start, end, init));
      // A rewrite inside the range (before any remembered payload): the word view sees the new bytes.
      if (end > start) b[start] = b[start]! ^ 0x5a;
      assert.equal(internetChecksum(b, start, end, init), fresh(b, start, end, init));
    }),
    { seed: 4242, numRuns: 400 },
  );
});

test("remembered sums stay right when sums alternate between views at different offsets of one buffer and of others", () => {
  const fresh = (b: Uint8Array, s: number, e: number): number => {
    let acc = onesSum(b, s, e, 0);
    while (acc > 0xffff) acc = (acc & 0xffff) + Math.floor(acc / 0x10000);
    return ~acc & 0xffff;
  };
  const ab = new ArrayBuffer(8192);
  const whole = new Uint8Array(ab);
  for (let i = 0; i < whole.length; i++) whole[i] = (i * 31 + 7) & 0xff;
  const plain = whole.slice(); // a buffer without a memo
  resetSumMemo(ab);
  const views = [new Uint8Array(ab, 0, 6000), new Uint8Array(ab, 2, 6000), new Uint8Array(ab, 5, 6000), plain];
  for (let round = 0; round < 3; round++) {
    for (const [k, v] of views.entries()) {
      for (const [s, e] of [[64, 5000], [10, 5000], [300, 700], [64, 6000]] as const) {
        assert.equal(internetChecksum(v, s, e, 0), fresh(v, s, e), `round ${round} view ${k} [${s}, ${e})`);
      }
    }
  }
  views[1]!.fill(0, 1000, 5000);
  rememberZeroSum(views[1]!, 1000, 5000);
  assert.equal(knownZeros(views[0]!, 1002, 5002), true, "the same bytes seen from a view 2 bytes earlier");
  assert.equal(knownZeros(views[2]!, 997, 4997), true, "the same bytes seen from a view 3 bytes later");
  assert.equal(knownZeros(views[2]!, 996, 4997), false, "a byte before them, seen from that view");
  assert.equal(internetChecksum(views[0]!, 200, 5002, 0), fresh(views[0]!, 200, 5002));
});
