// For every packet of every capture that has a tshark oracle (the shared external captures and the
// project's own pcaps/), cnisim's reader + dissect must agree with tshark on the frame (lengths,
// timestamp) and on every header field the oracle lists, outer headers first.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { openCapture } from "../../src/pcap/open-capture.js";
import type { CaptureRecord } from "../../src/pcap/types.js";
import { dissect } from "../../src/wire/dissect.js";
import type { Layer } from "../../src/wire/layers.js";
import { EXTERNAL_DIR, projectCapture } from "./paths.js";
import { CHECKSUM_UNKNOWN, cnisimFields, COMPARED_FIELDS, type OracleFrame } from "./tshark-fields.js";

type OracleCase = { capture: string; oracle: string };

function oracleCases(): OracleCase[] {
  const cases: OracleCase[] = [];
  for (const name of readdirSync(EXTERNAL_DIR).sort()) {
    const oracle = path.join(EXTERNAL_DIR, `${name}.tshark.json`);
    if (existsSync(oracle) && Array.isArray(JSON.parse(readFileSync(oracle, "utf8")))) {
      cases.push({ capture: path.join(EXTERNAL_DIR, name), oracle });
    }
  }
  const demo = projectCapture("demo-vxlan.pcap");
  cases.push({ capture: demo, oracle: `${demo}.tshark.json` });
  cases.push({ capture: demo, oracle: `${demo}.tshark-d8472.json` });
  return cases;
}

/** tshark's field prefix for the protocol named in an error layer. */
const FIELD_PREFIX: Record<string, string> = {
  eth: "eth.", vlan: "vlan.", arp: "arp.", ipv4: "ip.", ipv6: "ipv6.", icmp: "icmp.", icmpv6: "icmpv6.",
  udp: "udp.", tcp: "tcp.", vxlan: "vxlan.", geneve: "geneve.",
};
const UPPER_LAYER_PREFIXES = ["icmp.", "icmpv6.", "udp.", "tcp."];

/**
 * What to compare for one frame, after the documented differences between tshark's view and ours:
 * - tshark-oracle.py does not map UDP 8472 to VXLAN, so tshark stops at "udp:data" where we enter the tunnel;
 * - tshark reassembles IPv4 fragments and shows the reassembled upper layer on the last fragment, we do not;
 * - on a header cut short, tshark may still show the fields that were captured, we report an error layer.
 */
function comparable(layers: readonly Layer[], oracle: OracleFrame, problems: string[], frame: number): {
  layers: readonly Layer[];
  skipPrefixes: string[];
  tsharkMayHaveMore: string | null;
} {
  let kept = layers;
  const vxlanAt = layers.findIndex((l) => l.proto === "vxlan");
  const tsharkProtocols = oracle["frame.protocols"]?.[0] ?? "";
  if (vxlanAt >= 0 && !tsharkProtocols.includes("vxlan")) {
    const udp = layers[vxlanAt - 1];
    if (udp?.proto !== "udp" || udp.dstPort !== 8472) problems.push(`frame ${frame}: tshark did not decode VXLAN on a port other than 8472`);
    kept = layers.slice(0, vxlanAt);
  }
  const skipPrefixes: string[] = [];
  const fragment = kept.some((l) => l.proto === "ipv4" && (l.flags.includes("MF") || l.fragOffset > 0));
  if (fragment) {
    const last = kept[kept.length - 1];
    if (last?.proto !== "payload" || last.fragment !== true) problems.push(`frame ${frame}: a fragment should end in a fragment payload layer`);
    skipPrefixes.push(...UPPER_LAYER_PREFIXES);
  }
  const error = kept.find((l) => l.proto === "error");
  return { layers: kept, skipPrefixes, tsharkMayHaveMore: error?.proto === "error" ? (FIELD_PREFIX[error.layer] ?? null) : null };
}

function valuesMatch(ours: string, theirs: string): boolean {
  return ours === theirs || (ours === CHECKSUM_UNKNOWN && (theirs === "2" || theirs === "3"));
}

function compareFrame(record: CaptureRecord, oracle: OracleFrame, problems: string[]): number {
  const frame = record.index;
  const view = comparable(dissect(record.data, record.linkType), oracle, problems, frame);
  const ours = cnisimFields(record, view.layers);
  let compared = 0;
  for (const field of COMPARED_FIELDS) {
    if (view.skipPrefixes.some((p) => field.startsWith(p))) continue;
    const theirs = oracle[field] ?? [];
    const mine = ours[field] ?? [];
    const prefixOnly = view.tsharkMayHaveMore !== null && field.startsWith(view.tsharkMayHaveMore);
    const lengthOk = prefixOnly ? mine.length <= theirs.length : mine.length === theirs.length;
    const valuesOk = mine.every((v, i) => theirs[i] !== undefined && valuesMatch(v, theirs[i]));
    if (!lengthOk || !valuesOk) problems.push(`frame ${frame} ${field}: cnisim ${JSON.stringify(mine)} vs tshark ${JSON.stringify(theirs)}`);
    compared += mine.length;
  }
  return compared;
}

for (const { capture, oracle } of oracleCases()) {
  test(`agrees with tshark: ${path.basename(oracle)}`, async () => {
    const frames = JSON.parse(readFileSync(oracle, "utf8")) as OracleFrame[];
    const problems: string[] = [];
    let records = 0;
    let values = 0;
    for await (const record of openCapture(capture)) {
      const expected = frames[record.index - 1];
      assert.ok(expected, `tshark has no frame ${record.index}`);
      assert.equal(expected["frame.number"]?.[0], String(record.index));
      values += compareFrame(record, expected, problems);
      records++;
    }
    assert.equal(records, frames.length, "record count");
    assert.deepEqual(problems, []);
    assert.ok(values > records * 3, `compared ${values} values over ${records} frames`);
  });
}

test("a frame cut by the snaplen: tshark shows what was captured, cnisim reports where the IPv4 header ends", async () => {
  const records = [];
  for await (const record of openCapture(path.join(EXTERNAL_DIR, "rustpcap-packet_snaplen_20.pcap"))) records.push(record);
  assert.equal(records.length, 1);
  const [record] = records;
  assert.ok(record);
  assert.equal(record.caplen, 20);
  assert.equal(record.len, 98);
  const layers = dissect(record.data, record.linkType);
  assert.equal(layers[0]?.proto, "eth");
  const error = layers[1];
  assert.equal(error?.proto, "error");
  assert.equal(error.proto === "error" && error.layer, "ipv4");
  assert.equal(error.proto === "error" && error.offset >= 14 && error.offset <= 20, true);
  assert.equal(layers.length, 2);
});
