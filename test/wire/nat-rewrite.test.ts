// NAT rewrites with RFC 1624 incremental checksum updates must leave every checksum exactly as a full
// recompute would (IPv4 header, TCP/UDP pseudo-header, ICMP echo id), including UDP's 0 / 0xffff rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  IPV4_DST_FIELD,
  IPV4_SRC_FIELD,
  L4_DST_PORT_FIELD,
  L4_SRC_PORT_FIELD,
  rewriteIpv4Address,
  rewriteL4Port,
} from "../../src/wire/nat-rewrite.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4, verifyIpv4HeaderChecksum } from "../../src/wire/checksum.js";
import { read16, read32, write16 } from "../../src/wire/bytes.js";
import { ParsedHeaders, parseFrame } from "../../src/wire/headers.js";
import { buildFrame, packetArb } from "./packet-builder.js";
import { CRAFTED } from "./crafted-frames.js";

/** Recomputes IPv4 header and L4 checksums from scratch (the reference for the incremental path). */
function recomputed(frame: Uint8Array, h: ParsedHeaders): Uint8Array {
  const copy = frame.slice();
  setIpv4HeaderChecksum(copy, h.l3Offset, h.ipHeaderLen);
  const l4Length = h.end - h.l4Offset;
  if (!(h.ipProto === 17 && read16(frame, h.l4Offset + 6) === 0)) {
    setL4ChecksumV4(copy, h.l4Offset, l4Length, h.ipProto, read32(copy, h.l3Offset + 12), read32(copy, h.l3Offset + 16));
  }
  return copy;
}

const ipv4Packets = packetArb.filter((p) => p.ip.version === 4);

test("property: SNAT/DNAT of address and port equals a full checksum recompute (TCP, UDP, ICMP; 1000 runs)", () => {
  const h = new ParsedHeaders();
  fc.assert(
    fc.property(
      ipv4Packets,
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.integer({ min: 0, max: 0xffff }),
      fc.boolean(),
      fc.boolean(),
      (spec, address, port, source, zeroUdpChecksum) => {
        const frame = buildFrame(spec);
        assert.equal(parseFrame(frame, 0, frame.length, h), 0);
        if (zeroUdpChecksum && h.ipProto === 17) write16(frame, h.l4Offset + 6, 0);
        rewriteIpv4Address(frame, h.l3Offset, source ? IPV4_SRC_FIELD : IPV4_DST_FIELD, address, h.l4Offset, h.ipProto);
        rewriteL4Port(frame, h.l4Offset, h.ipProto, source ? L4_SRC_PORT_FIELD : L4_DST_PORT_FIELD, port);
        assert.deepEqual(frame, recomputed(frame, h));
        assert.equal(verifyIpv4HeaderChecksum(frame, h.l3Offset, h.ipHeaderLen), true);
        if (zeroUdpChecksum && h.ipProto === 17) assert.equal(read16(frame, h.l4Offset + 6), 0, "no checksum stays none");
      },
    ),
    { seed: 1631, numRuns: 1000 },
  );
});

test("UDP NAT that makes the sum all ones writes 0xffff, as a full recompute does", () => {
  const h = new ParsedHeaders();
  const frame = CRAFTED.udpBadChecksum.slice();
  parseFrame(frame, 0, frame.length, h);
  setL4ChecksumV4(frame, h.l4Offset, 11, 17, h.src4, h.dst4);
  let hits = 0;
  for (let port = 0; port < 0x10000; port++) {
    const probe = frame.slice();
    rewriteL4Port(probe, h.l4Offset, 17, L4_DST_PORT_FIELD, port);
    const reference = recomputed(probe, h);
    assert.equal(read16(probe, h.l4Offset + 6), read16(reference, h.l4Offset + 6));
    if (read16(probe, h.l4Offset + 6) === 0xffff) hits++;
  }
  assert.equal(hits, 1, "exactly one port value gives an all-ones sum");
});
