// The `--traffic` spec: the flows users write, their defaults, and errors that name the column and
// what is wrong.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatTrafficSpecError, parseTrafficSpec } from "../../src/api/index.js";
import { parseIPv4 } from "../../src/util/ip.js";

test("HTTP is the default kind: to a Service on port 80 at a rate", () => {
  const r = parseTrafficSpec("web/test->svc/web/web1:80 rate=200/s");
  assert.ok(r.ok);
  assert.deepEqual(
    { kind: r.value.kind, from: r.value.from, to: r.value.to, port: r.value.port, rate: r.value.ratePerSecond, path: r.value.path, after: r.value.afterNs },
    { kind: "http", from: { kind: "pod", namespace: "web", name: "test" }, to: { kind: "service", namespace: "web", name: "web1" }, port: 80, rate: 200, path: "/", after: 0 },
  );
  const dflt = parseTrafficSpec("http node/worker31->web/web1");
  assert.ok(dflt.ok);
  assert.deepEqual([dflt.value.from, dflt.value.port, dflt.value.ratePerSecond], [{ kind: "node", name: "worker31" }, 80, 10]);
});

test("UDP datagrams of a size, ping with data bytes, an address destination, a delayed start", () => {
  const udp = parseTrafficSpec("udp default/a->10.224.1.7:9000 rate=5000/s size=1400 after=30s");
  assert.ok(udp.ok);
  assert.deepEqual([udp.value.to, udp.value.port, udp.value.ratePerSecond, udp.value.size, udp.value.afterNs], [{ kind: "address", ip: parseIPv4("10.224.1.7") }, 9000, 5000, 1400, 30e9]);
  const ping = parseTrafficSpec("ping cyh/test->web/web1 rate=2 size=1000");
  assert.ok(ping.ok);
  assert.deepEqual([ping.value.kind, ping.value.port, ping.value.ratePerSecond, ping.value.size], ["ping", 0, 2, 1000]);
});

test("errors name the column and the problem", () => {
  const cases: [string, number, RegExp][] = [
    ["", 1, /empty traffic spec/],
    ["web/test", 1, /is not FROM->TO/],
    ["udp a/b->c/d", 13, /udp needs a destination port/],
    ["a/b->c/d:99999", 10, /"99999" is not a port/],
    ["ping a/b->c/d:80", 15, /ping has no port/],
    ["a/b->c/d rate=fast", 15, /rate "fast" is not a positive number/],
    ["a/b->c/d rate=1000000/s", 15, /above the limit/],
    ["udp a/b->c/d:9 size=20", 21, /size "20" must be a whole number of bytes from 28 to 65535/],
    ["a/b->c/d size=20", 10, /unknown option "size" for http/],
    ["svc/x/y->c/d", 1, /a Service cannot send traffic/],
    ["10.0.0.1->c/d", 1, /an address cannot send traffic/],
    ["a/B->c/d", 1, /not a Kubernetes name/],
    ["ping a/b->svc/c/d", 11, /does not answer ping/],
    ["a/b->c/d after=soon", 16, /after "soon" is not a duration/],
  ];
  for (const [spec, column, message] of cases) {
    const r = parseTrafficSpec(spec);
    assert.ok(!r.ok, spec);
    assert.equal(r.error.column, column, `${spec}: ${r.error.message}`);
    assert.match(r.error.message, message, spec);
  }
  const e = parseTrafficSpec("a/b->c/d rate=0");
  assert.ok(!e.ok);
  assert.equal(formatTrafficSpecError(e.error), '--traffic "a/b->c/d rate=0": column 15: rate "0" is not a positive number per second (e.g. 200/s)');
});
