// BGP-4 message encoding and decoding (RFC 4271): byte layouts checked against the RFC's field
// positions, decoding errors mapped to the NOTIFICATION code/subcode section 6 prescribes, and
// Wireshark's BGP dissector (tshark, when installed) decoding what we encode.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BgpError,
  BgpType,
  decodeMessage,
  encodeKeepalive,
  encodeNotification,
  encodeOpen,
  encodeUpdate,
  fourOctetAsOf,
  HeaderSub,
  OpenSub,
  Origin,
  standardCapabilities,
  UpdateSub,
  type BgpUpdate,
} from "../../src/cni/calico/bgp/message.js";
import { BgpFramer } from "../../src/cni/calico/bgp/transport.js";
import { tsharkAvailable, tsharkFields, TSHARK_MISSING } from "../pcap/tshark.js";
import { writeBgpPcap } from "./support/tcp-frames.js";

const ip = (s: string): number => s.split(".").reduce((a, o) => a * 256 + Number(o), 0);
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

const open = encodeOpen({ version: 4, myAs: 64512, holdTime: 240, bgpId: ip("10.1.8.31"), capabilities: standardCapabilities(64512) });
const update: BgpUpdate = {
  withdrawn: [{ prefix: ip("10.224.120.0"), length: 26 }],
  attributes: { origin: Origin.IGP, asPath: [], nextHop: ip("10.1.8.31"), localPref: 100 },
  nlri: [
    { prefix: ip("10.224.41.128"), length: 26 },
    { prefix: ip("10.224.0.0"), length: 16 },
  ],
};
const upd = encodeUpdate(update, true);

test("KEEPALIVE is the bare 19-byte header: 16 x 0xff, length 19, type 4", () => {
  assert.equal(hex(encodeKeepalive()), "ff".repeat(16) + "0013" + "04");
});

test("OPEN carries version 4, AS, hold time, identifier and capabilities as optional parameter type 2", () => {
  assert.equal(open[18], BgpType.OPEN);
  assert.equal(open[19], 4);
  assert.equal((open[20]! << 8) | open[21]!, 64512);
  assert.equal((open[22]! << 8) | open[23]!, 240);
  assert.equal(hex(open.subarray(24, 28)), "0a01081f");
  // MP IPv4 unicast (1: AFI 1, reserved, SAFI 1), route refresh (2, empty), 4-octet AS (65: 0000fc00)
  assert.equal(hex(open.subarray(28)), "14" + "0206010400010001" + "02020200" + "0206410400" + "00fc00");
  assert.equal((open[16]! << 8) | open[17]!, open.length);
  const d = decodeMessage(open, false);
  assert.ok(d.ok && d.value.type === BgpType.OPEN);
  if (d.ok && d.value.type === BgpType.OPEN) assert.equal(fourOctetAsOf(d.value.open), 64512);
});

test("UPDATE lays out withdrawn routes, ORIGIN/AS_PATH/NEXT_HOP/LOCAL_PREF and NLRI as RFC 4271 4.3 says", () => {
  const body = hex(upd.subarray(19));
  // withdrawn length 5: /26 needs 4 prefix bytes
  assert.ok(body.startsWith("0005" + "1a0ae07800"));
  // attributes (21 bytes): ORIGIN 40 01 01 00, AS_PATH 40 02 00 (empty: iBGP), NEXT_HOP 40 03 04 0a01081f, LOCAL_PREF 40 05 04 00000064
  assert.ok(body.includes("0015" + "40010100" + "400200" + "4003040a01081f" + "40050400000064"));
  // NLRI: 1a 0ae02980 (10.224.41.128/26), 10 0ae0 (10.224.0.0/16)
  assert.ok(body.endsWith("1a0ae02980" + "100ae0"));
  const d = decodeMessage(upd, true);
  assert.ok(d.ok);
  if (d.ok && d.value.type === BgpType.UPDATE) assert.deepEqual(d.value.update, update);
});

test("NOTIFICATION: code, subcode, data", () => {
  const n = encodeNotification({ code: BgpError.CEASE, subcode: 2, data: new Uint8Array(0) });
  assert.equal(hex(n), "ff".repeat(16) + "0015" + "03" + "06" + "02");
});

test("decoding errors give the NOTIFICATION the receiver must send (RFC 4271 section 6)", () => {
  const cases: [string, Uint8Array, number, number][] = [];
  const badMarker = encodeKeepalive();
  badMarker[3] = 0;
  cases.push(["marker not all ones", badMarker, BgpError.HEADER, HeaderSub.NOT_SYNCHRONIZED]);
  const badType = encodeKeepalive();
  badType[18] = 9;
  cases.push(["unknown type", badType, BgpError.HEADER, HeaderSub.BAD_TYPE]);
  const longKeepalive = new Uint8Array(20);
  longKeepalive.set(encodeKeepalive());
  longKeepalive[17] = 20;
  cases.push(["KEEPALIVE longer than 19", longKeepalive, BgpError.HEADER, HeaderSub.BAD_LENGTH]);
  const v3 = open.slice();
  v3[19] = 3;
  cases.push(["version 3", v3, BgpError.OPEN, OpenSub.UNSUPPORTED_VERSION]);
  const hold2 = open.slice();
  hold2[23] = 2;
  hold2[22] = 0;
  cases.push(["hold time 2", hold2, BgpError.OPEN, OpenSub.UNACCEPTABLE_HOLD]);
  const noHop = encodeUpdate({ ...update, attributes: { ...update.attributes!, nextHop: 0 } }, true);
  cases.push(["next hop 0.0.0.0", noHop, BgpError.UPDATE, UpdateSub.INVALID_NEXT_HOP]);
  const badOrigin = upd.slice();
  badOrigin[19 + 2 + 5 + 2 + 3] = 7;
  cases.push(["ORIGIN 7", badOrigin, BgpError.UPDATE, UpdateSub.INVALID_ORIGIN]);
  const optionalOrigin = upd.slice();
  optionalOrigin[19 + 2 + 5 + 2] = 0xc0;
  cases.push(["ORIGIN flagged optional", optionalOrigin, BgpError.UPDATE, UpdateSub.ATTRIBUTE_FLAGS]);
  for (const [what, bytes, code, subcode] of cases) {
    const d = decodeMessage(bytes, true);
    assert.ok(!d.ok, `${what} must not decode`);
    if (!d.ok) assert.deepEqual([d.error.code, d.error.subcode], [code, subcode], what);
  }
});

test("an UPDATE with NLRI but without NEXT_HOP is missing a well-known attribute (3/3)", () => {
  // Hand-built: attributes ORIGIN + AS_PATH only, then one NLRI.
  const attrs = [0x40, 1, 1, 0, 0x40, 2, 0];
  const nlri = [24, 10, 0, 1];
  const len = 19 + 2 + 2 + attrs.length + nlri.length;
  const b = new Uint8Array(len);
  b.fill(0xff, 0, 16);
  b[16] = len >> 8;
  b[17] = len & 0xff;
  b[18] = 2;
  b[22] = attrs.length;
  b.set(attrs, 23);
  b.set(nlri, 23 + attrs.length);
  const d = decodeMessage(b, true);
  assert.ok(!d.ok);
  if (!d.ok) assert.deepEqual([d.error.code, d.error.subcode, d.error.field], [BgpError.UPDATE, UpdateSub.MISSING_WELL_KNOWN, "NEXT_HOP"]);
});

test("the framer cuts a TCP byte stream into messages whatever the segment boundaries", () => {
  const stream = new Uint8Array([...open, ...encodeKeepalive(), ...upd]);
  for (const cut of [1, 7, 19, 20, 50, stream.length - 1]) {
    const f = new BgpFramer();
    const a = f.push(stream.subarray(0, cut));
    const b = f.push(stream.subarray(cut));
    const got = [...a.messages, ...b.messages].map((m) => m[18]);
    assert.deepEqual(got, [1, 4, 2], `cut at ${cut}`);
  }
});

test("Wireshark's BGP dissector reads our OPEN, KEEPALIVE, UPDATE and NOTIFICATION as we meant them", { skip: tsharkAvailable() ? false : TSHARK_MISSING }, async () => {
  const file = join(mkdtempSync(join(tmpdir(), "cnisim-bgp-")), "bgp.pcap");
  await writeBgpPcap(file, [open, encodeKeepalive(), upd, encodeNotification({ code: 6, subcode: 2, data: new Uint8Array(0) })]);
  const rows = tsharkFields(file, [
    "bgp.type",
    "bgp.open.myas",
    "bgp.open.holdtime",
    "bgp.open.identifier",
    "bgp.cap.4as",
    "bgp.update.path_attribute.next_hop",
    "bgp.update.path_attribute.origin",
    "bgp.update.path_attribute.local_pref",
    "bgp.withdrawn_prefix",
    "bgp.notify.major_error",
    "_ws.expert",
  ]);
  assert.deepEqual(rows.map((r) => r[0]), ["1", "4", "2", "3"]);
  assert.deepEqual(rows[0]!.slice(1, 5), ["64512", "240", "10.1.8.31", "64512"]);
  assert.deepEqual(rows[2]!.slice(5, 9), ["10.1.8.31", "0", "100", "10.224.120.0"]);
  assert.equal(rows[3]![9], "6");
  for (const r of rows) assert.equal(r[10], "", `tshark expert info on ${r[0]}: ${r[10]}`);
  const nlri = tsharkFields(file, ["frame.number", "bgp.nlri_prefix"], ["-Y", "bgp.type == 2"]);
  assert.deepEqual(nlri, [["3", "10.224.41.128,10.224.0.0"]]);
});
