// Property tests: every valid Repr survives emit -> parse unchanged, and the bytes survive parse -> emit.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import type { Result } from "../../src/util/result.js";
import type { WireError } from "../../src/wire/errors.js";
import { emitEthernet, ethernetHeaderLength, parseEthernet } from "../../src/wire/ethernet.js";
import { emitVlan, parseVlan, vlanHeaderLength } from "../../src/wire/vlan.js";
import { arpHeaderLength, emitArp, parseArp } from "../../src/wire/arp.js";
import { emitIpv4, ipv4HeaderLength, parseIpv4 } from "../../src/wire/ipv4.js";
import { emitIpv6, ipv6HeaderLength, parseIpv6 } from "../../src/wire/ipv6.js";
import { emitIcmp, icmpHeaderLength, parseIcmp } from "../../src/wire/icmp.js";
import { emitIcmpv6, icmpv6HeaderLength, parseIcmpv6 } from "../../src/wire/icmpv6.js";
import { emitUdp, parseUdp, udpHeaderLength } from "../../src/wire/udp.js";
import { emitTcp, parseTcp, tcpHeaderLength } from "../../src/wire/tcp.js";
import { emitVxlan, parseVxlan, vxlanHeaderLength } from "../../src/wire/vxlan.js";
import { emitGeneve, geneveHeaderLength, parseGeneve } from "../../src/wire/geneve.js";
import { emitSll, emitSll2, parseSll, parseSll2 } from "../../src/wire/sll.js";
import { verifyIpv4HeaderChecksum } from "../../src/wire/checksum.js";
import * as arb from "./arbitraries.js";

const RUNS = { seed: 20240601, numRuns: 1000 };

type Codec<R> = {
  arb: fc.Arbitrary<R>;
  length: (r: R) => number;
  emit: (r: R, b: Uint8Array, o: number) => number;
  parse: (b: Uint8Array, o: number, e: number) => Result<R, WireError>;
  /** Adjusts the expected Repr for fields that emit computes itself (the IPv4 header checksum). */
  normalize?: (r: R, parsed: R) => R;
};

function checkRoundTrip<R>(name: string, codec: Codec<R>): void {
  test(`${name}: emit -> parse gives the Repr back, parse -> emit gives the bytes back (1000 runs)`, () => {
    fc.assert(
      fc.property(codec.arb, fc.integer({ min: 0, max: 7 }), (repr, offset) => {
        const length = codec.length(repr);
        const bytes = new Uint8Array(offset + length + 3).fill(0xee);
        assert.equal(codec.emit(repr, bytes, offset), length);
        assert.equal(bytes[offset + length], 0xee, "emit wrote past its header length");
        const parsed = codec.parse(bytes, offset, offset + length);
        assert.ok(parsed.ok, parsed.ok ? "" : JSON.stringify(parsed.error));
        const expected = codec.normalize ? codec.normalize(repr, parsed.value) : repr;
        assert.deepEqual(parsed.value, expected);
        const again = new Uint8Array(offset + length + 3).fill(0xee);
        codec.emit(parsed.value, again, offset);
        assert.deepEqual(again, bytes);
      }),
      RUNS,
    );
  });
}

checkRoundTrip("ethernet", { arb: arb.ethernetArb, length: ethernetHeaderLength, emit: emitEthernet, parse: parseEthernet });
checkRoundTrip("vlan", { arb: arb.vlanArb, length: vlanHeaderLength, emit: emitVlan, parse: parseVlan });
checkRoundTrip("arp", { arb: arb.arpArb, length: arpHeaderLength, emit: emitArp, parse: parseArp });
checkRoundTrip("ipv4", {
  arb: arb.ipv4Arb,
  length: ipv4HeaderLength,
  emit: emitIpv4,
  parse: parseIpv4,
  // emit computes the header checksum; the parsed value must be that (valid) checksum.
  normalize: (r, p) => ({ ...r, checksum: p.checksum }),
});
checkRoundTrip("ipv6 with extension chain", { arb: arb.ipv6Arb, length: ipv6HeaderLength, emit: emitIpv6, parse: parseIpv6 });
checkRoundTrip("icmp", { arb: arb.icmpArb, length: icmpHeaderLength, emit: emitIcmp, parse: parseIcmp });
checkRoundTrip("icmpv6", { arb: arb.icmpArb, length: icmpv6HeaderLength, emit: emitIcmpv6, parse: parseIcmpv6 });
checkRoundTrip("udp", { arb: arb.udpArb, length: udpHeaderLength, emit: emitUdp, parse: parseUdp });
checkRoundTrip("tcp with options", { arb: arb.tcpArb, length: tcpHeaderLength, emit: emitTcp, parse: parseTcp });
checkRoundTrip("vxlan", { arb: arb.vxlanArb, length: vxlanHeaderLength, emit: emitVxlan, parse: parseVxlan });
checkRoundTrip("geneve with options", { arb: arb.geneveArb, length: geneveHeaderLength, emit: emitGeneve, parse: parseGeneve });
checkRoundTrip("linux sll", { arb: arb.sllArb, length: () => 16, emit: emitSll, parse: parseSll });
checkRoundTrip("linux sll2", {
  arb: arb.sllArb.chain((r) => fc.integer({ min: 0, max: 0xffffffff }).map((interfaceIndex) => ({ ...r, interfaceIndex }))),
  length: () => 20,
  emit: emitSll2,
  parse: parseSll2,
});

test("emitted IPv4 headers always carry a valid header checksum", () => {
  fc.assert(
    fc.property(arb.ipv4Arb, (repr) => {
      const bytes = new Uint8Array(ipv4HeaderLength(repr));
      emitIpv4(repr, bytes, 0);
      assert.equal(verifyIpv4HeaderChecksum(bytes, 0, bytes.length), true);
    }),
    RUNS,
  );
});
