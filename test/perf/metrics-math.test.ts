// The arithmetic the iperf/netperf-like workloads report with, against its definitions: RFC 1889's
// interarrival jitter (section 6.3.1 / appendix A.8, the estimator iperf3 uses) and nearest-rank
// percentiles (the worked example of the nearest-rank method).
import { test } from "node:test";
import assert from "node:assert/strict";
import { JitterEstimator } from "../../src/cluster/workloads/iperf/index.js";
import { percentile } from "../../src/cluster/workloads/rr/index.js";

test("jitter follows RFC 1889: J += (|D(i-1,i)| - J) / 16 over transit times", () => {
  const j = new JitterEstimator();
  // Transit times 10, 12, 11, 15 (sent at 0, 100, 200, 300): D = 2, 1, 4.
  j.add(0, 10);
  assert.equal(j.jitterNs, 0, "one datagram gives no difference yet");
  j.add(100, 112);
  assert.equal(j.jitterNs, 2 / 16);
  j.add(200, 211);
  assert.equal(j.jitterNs, 2 / 16 + (1 - 2 / 16) / 16);
  j.add(300, 315);
  const j2 = 2 / 16 + (1 - 2 / 16) / 16;
  assert.equal(j.jitterNs, j2 + (4 - j2) / 16);
});

test("a constant transit time has no jitter, whatever the spacing", () => {
  const j = new JitterEstimator();
  for (const t of [0, 5, 7, 100, 1000]) j.add(t, t + 42);
  assert.equal(j.jitterNs, 0);
});

test("nearest-rank percentiles: 15, 20, 35, 40, 50", () => {
  const v = Float64Array.from([15, 20, 35, 40, 50]);
  assert.equal(percentile(v, 5), 15);
  assert.equal(percentile(v, 30), 20);
  assert.equal(percentile(v, 40), 20);
  assert.equal(percentile(v, 50), 35);
  assert.equal(percentile(v, 100), 50);
  assert.equal(percentile(new Float64Array(0), 50), 0);
});
