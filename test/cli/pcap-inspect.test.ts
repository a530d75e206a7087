// `cnisim pcap inspect`, run as the built executable in a child process: text and JSON Lines output
// checked against tshark's oracle, the summary, warnings, and exit codes for bad files and bad usage.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { externalCapture, projectCapture, scratchDir } from "../pcap/paths.js";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const VXLAN = externalCapture("tcpdump-vxlan.pcap");
const ORACLE = JSON.parse(readFileSync(`${VXLAN}.tshark.json`, "utf8")) as Record<string, string[]>[];

function cnisim(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, ...args], { encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

function assertNoStackTrace(stderr: string): void {
  assert.doesNotMatch(stderr, /^\s+at /m);
  assert.doesNotMatch(stderr, /Error:/);
}

test("main.js starts with the node shebang (it is the package's bin)", () => {
  assert.equal(readFileSync(MAIN, "utf8").split("\n")[0], "#!/usr/bin/env node");
});

test("text mode: one tcpdump-like line per packet with tshark's timestamps, then the summary", () => {
  const run = cnisim("pcap", "inspect", VXLAN);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stderr, "");
  const out = lines(run.stdout);
  assert.equal(out.length, ORACLE.length + 1);
  ORACLE.forEach((frame, i) => {
    const line = out[i]!;
    assert.ok(line.startsWith(`${frame["frame.time_epoch"]?.[0]} `), line);
    assert.ok(line.includes(`IP ${frame["ip.src"]?.[0]}.${frame["udp.srcport"]?.[0]} > ${frame["ip.dst"]?.[0]}.4789`), line);
    assert.ok(line.includes(`vni ${frame["vxlan.vni"]?.[0]}`), line);
    const innerSrc = frame["ip.src"]?.[1];
    if (innerSrc !== undefined) assert.ok(line.includes(`IP ${innerSrc} > ${frame["ip.dst"]?.[1]}: ICMP`), line);
    else assert.ok(line.includes(`ARP, `) && line.includes(frame["arp.src.proto_ipv4"]?.[0] ?? "?"), line);
  });
  assert.equal(out[ORACLE.length], `summary: ${ORACLE.length} records read, ${ORACLE.length} decoded, 0 skipped`);
});

test("--json: JSON Lines in the issue's shape, values as tshark decoded them; summary on stderr", () => {
  const run = cnisim("pcap", "inspect", VXLAN, "--json");
  assert.equal(run.status, 0, run.stderr);
  const out = lines(run.stdout);
  assert.equal(out.length, ORACLE.length);
  out.forEach((line, i) => {
    const frame = ORACLE[i]!;
    const obj = JSON.parse(line) as { index: number; ts: string; caplen: number; len: number; layers: { proto: string; vni?: number }[] };
    assert.deepEqual(Object.keys(obj), ["index", "ts", "caplen", "len", "layers"]);
    assert.equal(obj.index, i + 1);
    assert.equal(obj.ts, frame["frame.time_epoch"]?.[0]);
    assert.equal(String(obj.caplen), frame["frame.cap_len"]?.[0]);
    assert.equal(String(obj.len), frame["frame.len"]?.[0]);
    // tshark's frame.protocols, e.g. "eth:ethertype:ip:udp:vxlan:eth:ethertype:arp", minus its pseudo-layers.
    const tsharkNames = (frame["frame.protocols"]?.[0] ?? "").split(":").filter((p) => p !== "ethertype" && p !== "data");
    const ours = obj.layers.map((l) => l.proto).filter((p) => p !== "payload");
    assert.deepEqual(ours, tsharkNames.map((p) => (p === "ip" ? "ipv4" : p)));
    assert.equal(obj.layers.find((l) => l.proto === "vxlan")?.vni, Number(frame["vxlan.vni"]?.[0]));
  });
  assert.deepEqual(lines(run.stderr), [`summary: ${ORACLE.length} records read, ${ORACLE.length} decoded, 0 skipped`]);
});

test("multi-interface pcapng: the interface name is shown per line", () => {
  const run = cnisim("pcap", "inspect", externalCapture("zeek-pcapng-multi-interface.pcapng"));
  assert.equal(run.status, 0, run.stderr);
  const out = lines(run.stdout);
  assert.equal(out.length, 7);
  assert.match(out[0]!, /^1767663089\.500330493 eth0 IP 172\.17\.0\.2\.36343 > 1\.1\.1\.1\.53: UDP/);
  assert.match(out[2]!, /^\d+\.\d{9} \\Device\\NPF_\{5AE6EDB4-EFF9-46B3-A3C2-EE50C688A9E6\} IP /);
});

test("the bundled demo capture decodes without errors", () => {
  const run = cnisim("pcap", "inspect", projectCapture("demo-vxlan.pcap"));
  assert.equal(run.status, 0, run.stderr);
  const out = lines(run.stdout);
  const oracle = JSON.parse(readFileSync(projectCapture("demo-vxlan.pcap.tshark.json"), "utf8")) as unknown[];
  assert.equal(out.length, oracle.length + 1);
  assert.equal(out.filter((l) => l.includes("vni 42")).length, oracle.length - 2, "all but the two underlay ARP frames are VXLAN");
  assert.ok(!run.stdout.includes("[|"), "no decode errors");
});

test("a corrupt file: `cnisim: FILE: offset N: reason`, exit 1, no stack trace", () => {
  const file = externalCapture("libpcap-shb-option-too-long.pcapng");
  for (const json of [false, true]) {
    const run = cnisim("pcap", "inspect", file, ...(json ? ["--json"] : []));
    assert.equal(run.status, 1);
    const err = lines(run.stderr);
    assert.equal(err[err.length - 1], `cnisim: ${file}: offset 24: SHB option code 12336 has length 12336, overrunning its block (20 bytes of option data left before offset 48)`);
    assertNoStackTrace(run.stderr);
  }
});

test("a truncated file: strict prints the good packets then fails; --lenient warns, skips and exits 0", () => {
  const whole = readFileSync(VXLAN);
  const file = path.join(scratchDir(), "cut.pcap");
  writeFileSync(file, whole.subarray(0, whole.length - 10));
  const lastOffset = whole.length - 16 - Number(ORACLE[9]?.["frame.cap_len"]?.[0]);

  const strict = cnisim("pcap", "inspect", file);
  assert.equal(strict.status, 1);
  const out = lines(strict.stdout);
  assert.equal(out.length, 10);
  assert.equal(out[9], "summary: 10 records read, 9 decoded, 0 skipped");
  assert.match(strict.stderr, new RegExp(`^cnisim: ${file}: offset ${lastOffset}: truncated record: `));

  const lenient = cnisim("pcap", "inspect", file, "--lenient");
  assert.equal(lenient.status, 0, lenient.stderr);
  assert.match(lenient.stderr, new RegExp(`^cnisim: ${file}: warning: skipped record 10 at offset ${lastOffset}: truncated record`));
  const lout = lines(lenient.stdout);
  assert.equal(lout.length, 11);
  assert.equal(lout[9], "summary: 10 records read, 9 decoded, 1 skipped");
  assert.match(lout[10]!, new RegExp(`^  skipped record 10 at offset ${lastOffset}: truncated record`));
});

test("a missing file exits 1, a bad command line exits 2", () => {
  const missing = cnisim("pcap", "inspect", "/nonexistent/x.pcap");
  assert.equal(missing.status, 1);
  assert.equal(missing.stderr, "cnisim: /nonexistent/x.pcap: cannot open: no such file\n");
  const usage = cnisim("pcap", "inspect", "--frobnicate", VXLAN);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /unknown option '--frobnicate'/);
  assertNoStackTrace(usage.stderr);
  assert.equal(cnisim("pcap", "inspect").status, 2);
  assert.equal(cnisim("--help").status, 0);
});
