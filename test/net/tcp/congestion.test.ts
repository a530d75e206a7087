// Congestion-window shapes under a synthetic ACK clock (one ACK per segment, fixed RTT), with the
// RFCs as the oracle: slow start doubles per RTT; Reno adds one segment per RTT (RFC 5681); CUBIC
// follows W(t) = C (t - K)^3 + W_max with C = 0.4, beta = 0.7 and K = cbrt(W_max (1 - beta) / C)
// (RFC 9438 4.2), concave below W_max and convex above, with fast convergence (4.7).

import { test } from "node:test";
import assert from "node:assert/strict";
import { Cubic, Reno, type CongestionControl } from "../../../src/net/tcp/index.js";
import { INFINITE_SSTHRESH, type CcHost } from "../../../src/net/tcp/cc/types.js";

const RTT = 100e6;

/** Runs `rtts` round trips; returns cwnd at the start of each. */
function clock(cc: CongestionControl, h: CcHost, rtts: number, start = 0): number[] {
  const trace: number[] = [];
  let now = start;
  for (let r = 0; r < rtts; r++) {
    trace.push(h.cwnd);
    const acks = h.cwnd;
    for (let i = 0; i < acks; i++) {
      cc.pktsAcked(RTT, now);
      cc.congAvoid(h, 1, Math.round(now + (i * RTT) / acks));
    }
    now += RTT;
  }
  return trace;
}

test("slow start doubles the window every round trip until ssthresh", () => {
  for (const cc of [new Reno(), new Cubic()]) {
    const h: CcHost = { cwnd: 10, ssthresh: INFINITE_SSTHRESH, cwndCnt: 0 };
    assert.deepEqual(clock(cc, h, 5), [10, 20, 40, 80, 160], cc.name);
  }
});

test("Reno: halve on loss, then one segment per round trip", () => {
  const reno = new Reno();
  const h: CcHost = { cwnd: 100, ssthresh: INFINITE_SSTHRESH, cwndCnt: 0 };
  h.ssthresh = reno.ssthresh(h);
  h.cwnd = h.ssthresh;
  assert.equal(h.cwnd, 50);
  const trace = clock(reno, h, 30);
  trace.forEach((w, i) => assert.equal(w, 50 + i, `RTT ${i}`));
});

test("CUBIC after a loss at 100 segments: beta 0.7, K = cbrt(75) s, and the cubic curve around W_max", () => {
  const cubic = new Cubic();
  const h: CcHost = { cwnd: 100, ssthresh: INFINITE_SSTHRESH, cwndCnt: 0 };
  h.ssthresh = cubic.ssthresh(h);
  h.cwnd = h.ssthresh;
  assert.equal(h.ssthresh, 70);
  const rtts = 90;
  const trace = clock(cubic, h, rtts);
  const K = Math.cbrt((100 * (1 - 0.7)) / 0.4);
  assert.ok(Math.abs(cubic.k - K) < 1e-9, `K ${cubic.k}`);
  const W = (t: number): number => 0.4 * (t - K) ** 3 + 100;
  for (let r = 5; r < rtts; r++) {
    const t = (r * RTT) / 1e9;
    const want = W(t);
    assert.ok(Math.abs(trace[r]! - want) <= Math.max(3, 0.05 * want), `t=${t.toFixed(1)} s: cwnd ${trace[r]}, W(t) ${want.toFixed(1)}`);
  }
  // Concave then convex: growth per RTT shrinks toward K and grows after it.
  const growth = (a: number, b: number): number => trace[b]! - trace[a]!;
  assert.ok(growth(5, 15) > growth(25, 35), "concave region slows down near W_max");
  assert.ok(growth(60, 70) > growth(45, 55), "convex region speeds up past W_max");
  const plateau = trace.findIndex((w) => w >= 100);
  assert.ok(Math.abs((plateau * RTT) / 1e9 - K) < 0.5, `reached W_max after ${plateau} RTTs`);
});

test("CUBIC fast convergence: a loss below the previous W_max remembers (1 + beta) / 2 of it", () => {
  const cubic = new Cubic();
  const h: CcHost = { cwnd: 100, ssthresh: INFINITE_SSTHRESH, cwndCnt: 0 };
  cubic.ssthresh(h);
  assert.equal(cubic.lastMaxCwnd, 100);
  h.cwnd = 90;
  assert.equal(cubic.ssthresh(h), 63);
  assert.equal(cubic.lastMaxCwnd, Math.floor((90 * 1741) / 2048));
});

test("Reno and CUBIC differ in shape: after the same loss CUBIC regains W_max in seconds, Reno in 50 RTTs", () => {
  const reno = new Reno();
  const cubic = new Cubic();
  const r: CcHost = { cwnd: 100, ssthresh: INFINITE_SSTHRESH, cwndCnt: 0 };
  const c: CcHost = { cwnd: 100, ssthresh: INFINITE_SSTHRESH, cwndCnt: 0 };
  r.ssthresh = r.cwnd = reno.ssthresh(r);
  c.ssthresh = c.cwnd = cubic.ssthresh(c);
  const rt = clock(reno, r, 60);
  const ct = clock(cubic, c, 60);
  assert.equal(rt.findIndex((w) => w >= 100), 50);
  assert.ok(ct.findIndex((w) => w >= 100) < 50);
  // At the midpoint CUBIC is already close to W_max (concave), Reno only halfway.
  assert.ok(ct[25]! > 90 && rt[25]! === 75, `RTT 25: cubic ${ct[25]}, reno ${rt[25]}`);
});
