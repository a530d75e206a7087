// Packet-level properties: random valid packets parse back to what was built (fast path and dissect agree,
// checksums verify), and random garbage or damaged frames never make any parser throw.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ParsedHeaders, ParseStatus, parseFrame, parseIp } from "../../src/wire/headers.js";
import { dissect } from "../../src/wire/dissect.js";
import { summarize } from "../../src/wire/summary.js";
import { parseEthernet } from "../../src/wire/ethernet.js";
import { parseVlan } from "../../src/wire/vlan.js";
import { parseArp } from "../../src/wire/arp.js";
import { parseIpv4 } from "../../src/wire/ipv4.js";
import { parseIpv6 } from "../../src/wire/ipv6.js";
import { parseIcmp } from "../../src/wire/icmp.js";
import { parseIcmpv6 } from "../../src/wire/icmpv6.js";
import { parseUdp } from "../../src/wire/udp.js";
import { parseTcp } from "../../src/wire/tcp.js";
import { parseVxlan } from "../../src/wire/vxlan.js";
import { parseGeneve } from "../../src/wire/geneve.js";
import { parseSll, parseSll2 } from "../../src/wire/sll.js";
import { formatIPv4, formatIPv6 } from "../../src/util/ip.js";
import { buildFrame, packetArb } from "./packet-builder.js";
import { EXTERNAL_CLASSIC_PCAPS, readClassicPcap, sharedPath } from "./fixtures.js";

const RUNS = { seed: 42, numRuns: 1000 };
const LINK_TYPES = [1, 101, 228, 229, 113, 276];
const PARSERS = [parseEthernet, parseVlan, parseArp, parseIpv4, parseIpv6, parseIcmp, parseIcmpv6, parseUdp, parseTcp, parseVxlan, parseGeneve, parseSll, parseSll2];

test("random valid packets: parseFrame reads back every field that was built (1000 runs)", () => {
  const out = new ParsedHeaders();
  fc.assert(
    fc.property(packetArb, (spec) => {
      const frame = buildFrame(spec);
      assert.equal(parseFrame(frame, 0, frame.length, out), ParseStatus.OK);
      assert.equal(out.vlanCount, spec.vlans.length);
      if (spec.vlans[0]) assert.equal(out.vlanTci0 & 0xfff, spec.vlans[0].vid);
      assert.equal(out.ipVersion, spec.ip.version);
      assert.equal(out.ttl, spec.ip.version === 4 ? spec.ip.repr.ttl : spec.ip.repr.hopLimit);
      if (spec.ip.version === 4) assert.deepEqual([out.src4, out.dst4], [spec.ip.repr.src, spec.ip.repr.dst]);
      else assert.deepEqual(frame.slice(out.src6Offset, out.src6Offset + 16), spec.ip.repr.src);
      assert.equal(out.end, frame.length);
      assert.equal(frame.length - out.payloadOffset, spec.payload.length);
      const l4 = spec.l4;
      if (l4.kind === "tcp") {
        assert.deepEqual([out.srcPort, out.dstPort, out.tcpSeq, out.tcpAck, out.tcpFlags, out.tcpWindow], [
          l4.repr.srcPort, l4.repr.dstPort, l4.repr.seq, l4.repr.ack, l4.repr.flags, l4.repr.window,
        ]);
      } else if (l4.kind === "udp") {
        assert.deepEqual([out.srcPort, out.dstPort], [l4.repr.srcPort, l4.repr.dstPort]);
      } else {
        assert.deepEqual([out.icmpType, out.icmpCode], [l4.repr.type, l4.repr.code]);
      }
    }),
    RUNS,
  );
});

test("random valid packets: dissect shows the same headers, no error, and every checksum valid (1000 runs)", () => {
  fc.assert(
    fc.property(packetArb, (spec) => {
      const layers = dissect(buildFrame(spec), 1);
      assert.ok(!layers.some((l) => l.proto === "error"), JSON.stringify(layers));
      assert.deepEqual(layers.filter((l) => l.proto === "vlan").map((l) => (l.proto === "vlan" ? l.id : -1)), spec.vlans.map((v) => v.vid));
      const ip = layers.find((l) => l.proto === "ipv4" || l.proto === "ipv6");
      if (spec.ip.version === 4) assert.ok(ip?.proto === "ipv4" && ip.src === formatIPv4(spec.ip.repr.src) && ip.checksumOk);
      else assert.ok(ip?.proto === "ipv6" && ip.dst === formatIPv6(spec.ip.repr.dst));
      const l4 = layers.find((l) => l.proto === "tcp" || l.proto === "udp" || l.proto === "icmp" || l.proto === "icmpv6");
      assert.ok(l4 && "checksumOk" in l4);
      assert.equal(l4.checksumOk, true, JSON.stringify(l4));
      assert.ok(summarize(layers).length > 0);
    }),
    RUNS,
  );
});

test("random garbage never throws: parseFrame, parseIp, every parseX, dissect on every link type (1000 runs)", () => {
  const out = new ParsedHeaders();
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: -2, max: 210 }), fc.integer({ min: -2, max: 260 }), (bytes, offset, end) => {
      const code = parseFrame(bytes, offset, end, out);
      assert.ok(code >= 0 && code <= 5);
      assert.ok(parseIp(bytes, offset, end, out) >= 0);
      for (const parse of PARSERS) {
        const r = parse(bytes, offset, end);
        if (!r.ok) assert.equal(typeof r.error.reason, "string");
      }
      for (const linkType of LINK_TYPES) summarize(dissect(bytes, linkType));
    }),
    RUNS,
  );
});

test("damaged real frames (truncated, bytes overwritten) never throw and errors point inside the frame (1000 runs)", () => {
  const frames = EXTERNAL_CLASSIC_PCAPS.flatMap((c) => readClassicPcap(sharedPath("pcaps/external", c)).frames);
  const out = new ParsedHeaders();
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: frames.length - 1 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 6 }),
      fc.nat(),
      (index, edits, cut) => {
        const original = frames[index]!;
        const frame = original.slice(0, original.length - (cut % (original.length + 1)));
        for (const [at, value] of edits) if (frame.length > 0) frame[at % frame.length] = value;
        if (parseFrame(frame, 0, frame.length, out) !== ParseStatus.OK) {
          assert.ok(out.errorOffset >= 0 && out.errorOffset <= frame.length, `${out.errorLayer}.${out.errorField}@${out.errorOffset}`);
        }
        for (const layer of dissect(frame, 1)) {
          if (layer.proto === "error") assert.ok(layer.offset >= 0 && layer.offset <= frame.length);
        }
      },
    ),
    RUNS,
  );
});
