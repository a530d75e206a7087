// Ping against iputils (iputils-ping.ts, made by ping-capture.sh): the echo request's bytes
// (DF, TTL 64, identifier/sequence, a timeval then 0x10..0x37), the reply lines and the summary in
// iputils' format, lost replies, ICMP errors as "From ..." lines, and busybox's variant.

import { test } from "node:test";
import assert from "node:assert/strict";
import { Ping, PingStyle, formatIputilsRtt, type PingResult } from "../../../src/cluster/workloads/index.js";
import { RouteType } from "../../../src/net/stack/index.js";
import { unwrap } from "../../../src/util/result.js";
import { Capture, assertConserved, fromHex, ip, linked, routed, vethPair } from "../../net/tcp/topology.js";
import { FIRST_REQUEST_HEX, PING_LOST, PING_OK } from "./iputils-ping.js";

function runPing(setup: { world: { sim: { run(): number } } }, ping: (done: (r: PingResult) => void) => Ping): PingResult {
  let result: PingResult | null = null;
  ping((r) => (result = r)).start();
  setup.world.sim.run();
  assert.ok(result !== null);
  return result;
}

/** A line with its numbers replaced, to compare the shape of iputils' output with the model's. */
const shape = (line: string): string => line.replace(/\d+(\.\d+)?/g, "N");

test("the echo request carries what iputils puts in it", () => {
  const t = vethPair();
  const cap = Capture.on(t.va);
  runPing(t, (done) => new Ping(t.a, ip("10.9.0.2"), { count: 1 }, done));
  const icmp = cap.frames.find((f) => f.bytes[23] === 1)!.bytes;
  const real = fromHex(FIRST_REQUEST_HEX);
  assert.equal(icmp.length, real.length);
  const mask = (b: Uint8Array): string => {
    const c = b.slice();
    c.fill(0, 0, 12); // MACs
    c.fill(0, 18, 20); // IP ID
    c.fill(0, 24, 26); // IP checksum
    c.fill(0, 36, 40); // ICMP checksum and identifier
    c.fill(0, 42, 58); // struct timeval
    return Buffer.from(c).toString("hex");
  };
  assert.equal(mask(icmp), mask(real));
});

test("three replies: iputils' lines and summary (RTT printed with its rounding rules)", () => {
  const t = linked({ latencyNs: 40_000 });
  const r = runPing(t, (done) => new Ping(t.a, ip("10.9.0.2"), { count: 3 }, done));
  assert.equal(r.received, 3);
  assert.deepEqual(r.lines.map(shape), PING_OK.map(shape));
  assert.equal(r.lines[0], PING_OK[0]);
  const rtt = formatIputilsRtt(r.replies[0]!.rttNs);
  assert.equal(r.lines[1], `64 bytes from 10.9.0.2: icmp_seq=1 ttl=64 time=${rtt} ms`);
  assert.equal(r.lines[6], "3 packets transmitted, 3 received, 0% packet loss, time 2000ms");
  assertConserved(t.world);
});

test("iputils' RTT formats: 3 decimals below 1 ms, then 2, 1, none", () => {
  assert.equal(formatIputilsRtt(45_000), "0.045");
  assert.equal(formatIputilsRtt(1_234_000), "1.23");
  assert.equal(formatIputilsRtt(12_345_000), "12.3");
  assert.equal(formatIputilsRtt(123_456_000), "123");
});

test("no answer: the summary iputils prints for -c 2 -W 1", () => {
  const t = vethPair();
  const r = runPing(t, (done) => new Ping(t.a, ip("10.9.0.77"), { count: 2, lingerNs: 1e9 }, done));
  assert.deepEqual(r.lines.map(shape), PING_LOST.map(shape));
  assert.equal(r.lines[3], "2 packets transmitted, 0 received, 100% packet loss, time 1000ms");
});

test("an unreachable route on the way (the router sends host unreachable): 'From <router> ...' lines and +errors", () => {
  const t = routed({});
  unwrap(t.r.routes.add({ dst: ip("10.50.0.0"), prefixLen: 16, type: RouteType.UNREACHABLE }));
  const r = runPing(t, (done) => new Ping(t.c, ip("10.50.0.1"), { count: 2 }, done));
  assert.equal(r.errors, 2);
  assert.equal(r.lines[1], "From 10.1.0.1 icmp_seq=1 Destination Host Unreachable");
  assert.equal(r.lines[2], "From 10.1.0.1 icmp_seq=2 Destination Host Unreachable");
  assert.match(r.lines[5]!, /^2 packets transmitted, 0 received, \+2 errors, 100% packet loss, time 1000ms$/);
});

test("busybox ping: seq from 0 and its own summary", () => {
  const t = linked({ latencyNs: 40_000 });
  const r = runPing(t, (done) => new Ping(t.a, ip("10.9.0.2"), { count: 2, style: PingStyle.BUSYBOX }, done));
  assert.equal(r.lines[0], "PING 10.9.0.2 (10.9.0.2): 56 data bytes");
  assert.match(r.lines[1]!, /^64 bytes from 10\.9\.0\.2: seq=0 ttl=64 time=\d+\.\d{3} ms$/);
  assert.equal(r.lines[4], "--- 10.9.0.2 ping statistics ---");
  assert.equal(r.lines[5], "2 packets transmitted, 2 packets received, 0% packet loss");
  assert.match(r.lines[6]!, /^round-trip min\/avg\/max = \d+\.\d{3}\/\d+\.\d{3}\/\d+\.\d{3} ms$/);
});
