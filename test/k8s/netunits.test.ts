import { test } from "node:test";
import assert from "node:assert/strict";
import { parseBandwidth, parseDuration } from "../../src/k8s/netunits.js";

test("bandwidths are bits per second with decimal SI prefixes", () => {
  const cases: [string | number, number][] = [
    ["10Gbps", 10e9],
    ["25G", 25e9],
    ["100Mbit", 100e6],
    ["1.5Gbit/s", 1.5e9],
    ["100kbps", 100e3],
    ["1Tbps", 1e12],
    ["9600", 9600],
    [1000000, 1e6],
  ];
  for (const [text, bps] of cases) assert.deepEqual(parseBandwidth(text), { ok: true, value: bps }, String(text));
});

test("ambiguous or malformed bandwidths are refused with a reason", () => {
  const bytes = parseBandwidth("10GBps");
  assert.ok(!bytes.ok && bytes.error.includes("bytes per second is ambiguous"));
  for (const bad of ["fast", "10 Gbps", "10Gibps", "-1G", "0"]) assert.equal(parseBandwidth(bad).ok, false, bad);
});

test("durations follow Go's time.ParseDuration units (ns, us/µs, ms, s; a bare 0)", () => {
  const cases: [string | number, number][] = [
    ["50us", 50_000],
    ["50µs", 50_000],
    ["1ms", 1_000_000],
    ["1.5ms", 1_500_000],
    ["2s", 2_000_000_000],
    ["100ns", 100],
    ["0", 0],
    [0, 0],
  ];
  for (const [text, ns] of cases) assert.deepEqual(parseDuration(text), { ok: true, value: ns }, String(text));
  for (const bad of ["50", "1.5ns", "5 ms", "1m", 50]) assert.equal(parseDuration(bad).ok, false, String(bad));
});
