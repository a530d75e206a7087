// Property: every NAT rewrite keeps IPv4, TCP, UDP and ICMP checksums equal to a full recomputation
// (0x0000 and 0xffff both mean "sum zero"), a zero UDP checksum stays zero, and the kernel-style
// incremental update agrees with RFC 1071 over random fields.

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { manipPacket } from "../../../src/net/netfilter/nat/manip.js";
import { csumReplace4, csumReplace2 } from "../../../src/net/netfilter/nat/csum.js";
import { NatManip } from "../../../src/net/netfilter/hooks.js";
import { internetChecksum, setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { formatIPv4 } from "../../../src/util/ip.js";
import { icmpMsg, tcpSeg, udpDgram } from "./helpers.js";

const sameSum = (a: number, b: number): boolean => a === b || ((a === 0 || a === 0xffff) && (b === 0 || b === 0xffff));
const read16 = (b: Uint8Array, at: number): number => (b[at]! << 8) | b[at + 1]!;
const read32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

const addr = fc.integer({ min: 0, max: 0xffffffff });
const port = fc.integer({ min: 0, max: 0xffff });

test("NAT rewrites leave every checksum equal to a full recomputation", () => {
  fc.assert(
    fc.property(
      fc.constantFrom(6, 17, 1),
      addr,
      addr,
      port,
      port,
      fc.uint8Array({ maxLength: 40 }),
      addr,
      port,
      fc.boolean(),
      (proto, s, d, sp, dp, payload, newAddr, newPort, srcSide) => {
        const S = formatIPv4(s);
        const Dd = formatIPv4(d);
        const pkt =
          proto === 6
            ? tcpSeg(S, sp, Dd, dp, 0x18, { seq: 1, ack: 2, payload })
            : proto === 17
              ? udpDgram(S, sp, Dd, dp, payload)
              : icmpMsg(S, Dd, 8, 0, ((sp << 16) | dp) >>> 0, payload);
        const manip = srcSide ? NatManip.SRC : NatManip.DST;
        const ports = ((newPort << 16) | newPort) >>> 0;
        assert.ok(manipPacket(pkt, 0, pkt.length, newAddr, newAddr, ports, proto, manip));
        const check = (at: number, fill: () => void): void => {
          const incremental = read16(pkt, at);
          fill();
          assert.ok(sameSum(incremental, read16(pkt, at)), `checksum at ${at}: ${incremental} vs ${read16(pkt, at)}`);
        };
        check(10, () => setIpv4HeaderChecksum(pkt, 0, 20));
        const l4len = pkt.length - 20;
        const sa = read32(pkt, 12);
        const da = read32(pkt, 16);
        const field = proto === 6 ? 36 : proto === 17 ? 26 : 22;
        if (proto === 17 && read16(pkt, 26) === 0) return;
        check(field, () => setL4ChecksumV4(pkt, 20, l4len, proto, sa, da));
      },
    ),
    { numRuns: 2000, seed: 42 },
  );
});

test("a zero (absent) UDP checksum is never filled in by NAT", () => {
  fc.assert(
    fc.property(addr, addr, port, port, addr, port, (s, d, sp, dp, na, np) => {
      const pkt = udpDgram(formatIPv4(s), sp, formatIPv4(d), dp, new Uint8Array([1, 2, 3]), { zeroChecksum: true });
      manipPacket(pkt, 0, pkt.length, na, na, ((np << 16) | np) >>> 0, 17, NatManip.SRC);
      assert.equal(read16(pkt, 26), 0);
    }),
    { numRuns: 500, seed: 7 },
  );
});

test("csumReplace4/2 equal recomputing the sum over data where the field changed", () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 8, maxLength: 64 }), fc.nat(), addr, (data, pos, value) => {
      const buf = new Uint8Array(data.length + (data.length % 2));
      buf.set(data);
      const at = (pos % (buf.length / 2 - 1)) * 2;
      const before = internetChecksum(buf, 0, buf.length);
      const old32 = read32(buf, at);
      buf[at] = value >>> 24;
      buf[at + 1] = (value >>> 16) & 0xff;
      buf[at + 2] = (value >>> 8) & 0xff;
      buf[at + 3] = value & 0xff;
      assert.ok(sameSum(csumReplace4(before, old32, value), internetChecksum(buf, 0, buf.length)));
      const old16 = read16(buf, at);
      buf[at] = 0x12;
      buf[at + 1] = 0x34;
      const mid = internetChecksum(buf, 0, buf.length);
      assert.ok(sameSum(csumReplace2(internetChecksum(buf.map((x, k) => (k === at ? old16 >>> 8 : k === at + 1 ? old16 & 0xff : x)), 0, buf.length), old16, 0x1234), mid));
    }),
    { numRuns: 1000, seed: 3 },
  );
});
