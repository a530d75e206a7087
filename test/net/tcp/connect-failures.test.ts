// How a connection attempt fails, as a Linux client sees it: an unanswered SYN is retransmitted on
// the kernel's schedule (tcp_syn_linear_timeouts, tcp_syn_retries) and ends in ETIMEDOUT; a reset
// or ICMP port unreachable is ECONNREFUSED at once; a failed ARP is EHOSTUNREACH after three
// probes; a dropped SYN (link down, DROP rule) is a timeout, and the caller's connect timeout cuts
// the wait short. Times are compared with the kernel capture (its timer wheel fires a little late).

import { test } from "node:test";
import assert from "node:assert/strict";
import { DropReason } from "../../../datapath/reasons.js";
import { iptablesRestore } from "../../../src/net/netfilter/index.js";
import { TcpError, TcpStack, modelTimeout, type TcpErrorInfo } from "../../../src/net/tcp/index.js";
import { unwrap } from "../../../src/util/result.js";
import { SYN_CONNECT_ERRNO, SYN_CONNECT_FAILED_AFTER, SYN_UNANSWERED } from "./kernel-tcp.js";
import { Capture, assertConserved, ip, linked, vethPair } from "./topology.js";

const S = 1e9;

/** Connects A to an address nobody answers; returns SYN times (s) and the failure. */
function unanswered(linearTimeouts?: number) {
  const t = vethPair();
  const cap = Capture.on(t.va);
  const tcp = TcpStack.of(t.a);
  if (linearTimeouts !== undefined) tcp.sysctl.synLinearTimeouts = linearTimeouts;
  t.a.neigh.addStatic(t.va, ip("10.9.0.99"), 0x020000000099);
  let failure: TcpErrorInfo | null = null;
  let at = -1;
  unwrap(tcp.connect(ip("10.9.0.99"), 80, { onClose: (_s, e) => ((failure = e), (at = t.world.sim.now / S)) }));
  t.world.sim.run();
  return { times: cap.tcp().map((f) => f.time / S), failure: failure as TcpErrorInfo | null, at, world: t.world };
}

test("an unanswered SYN: 10 retransmissions at 1,2,3,4,5,7,11,19,35,67 s and ETIMEDOUT at 131 s, as Linux 6.18", () => {
  const run = unanswered();
  const kernel = SYN_UNANSWERED.map((f) => f.t);
  assert.deepEqual(run.times, [0, 1, 2, 3, 4, 5, 7, 11, 19, 35, 67]);
  assert.equal(run.times.length, kernel.length);
  run.times.forEach((m, i) => {
    const late = kernel[i]! - m;
    assert.ok(late >= 0 && late <= 0.035 * m + 0.01, `SYN ${i}: kernel at ${kernel[i]} s, model at ${m} s`);
  });
  assert.equal(run.failure?.kind, TcpError.TIMEOUT);
  assert.equal(run.failure?.errno, "ETIMEDOUT");
  assert.equal(SYN_CONNECT_ERRNO, 110);
  assert.equal(run.at, 131);
  const late = SYN_CONNECT_FAILED_AFTER - run.at;
  assert.ok(late >= 0 && late <= 0.035 * run.at, `kernel failed at ${SYN_CONNECT_FAILED_AFTER} s`);
  assertConserved(run.world);
});

test("without linear timeouts (Linux < 6.5): 1, 3, 7, 15, 31, 63 s and the documented 127 s give-up", () => {
  const run = unanswered(0);
  assert.deepEqual(run.times, [0, 1, 3, 7, 15, 31, 63]);
  assert.equal(run.at, 127);
  assert.equal(modelTimeout(6, S), 127 * S);
  assert.equal(run.failure?.kind, TcpError.TIMEOUT);
});

test("a reset answers the SYN: refused at once (ECONNREFUSED)", () => {
  const t = vethPair();
  let failure: TcpErrorInfo | null = null;
  let at = -1;
  unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 8080, { onClose: (_s, e) => ((failure = e), (at = t.world.sim.now)) }));
  t.world.sim.run();
  assert.equal((failure as TcpErrorInfo | null)?.kind, TcpError.REFUSED);
  assert.equal(at, 0);
  assert.equal(t.b.counters.tcp.OutRsts, 1);
  assertConserved(t.world);
});

test("REJECT with icmp-port-unreachable is refused, DROP is a timeout: refused vs dropped", () => {
  const outcome = (target: string, timeoutNs?: number) => {
    const t = vethPair();
    unwrap(iptablesRestore(t.b.netfilter, `*filter\n-A INPUT -p tcp --dport 80 -j ${target}\nCOMMIT\n`, { noflush: true }));
    TcpStack.of(t.b).listen(80, () => {});
    let failure: TcpErrorInfo | null = null;
    let at = -1;
    const events = { onClose: (_s: unknown, e: TcpErrorInfo | null) => ((failure = e), (at = t.world.sim.now / S)) };
    unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 80, events, timeoutNs !== undefined ? { timeoutNs } : {}));
    t.world.sim.run();
    assertConserved(t.world);
    return { failure: failure as TcpErrorInfo | null, at, drops: t.world.ledger.dropsByReason };
  };
  const rejected = outcome("REJECT");
  assert.equal(rejected.failure?.kind, TcpError.REFUSED);
  assert.equal(rejected.failure?.errno, "ECONNREFUSED");
  assert.equal(rejected.at, 0);
  const reset = outcome("REJECT --reject-with tcp-reset");
  assert.equal(reset.failure?.kind, TcpError.REFUSED);
  const dropped = outcome("DROP", 10 * S);
  assert.equal(dropped.failure?.kind, TcpError.TIMEOUT);
  assert.equal(dropped.at, 10, "the caller's connect timeout");
  assert.equal([...dropped.drops.values()].reduce((a, b) => a + b, 0), 7, "the SYNs at 0, 1, 2, 3, 4, 5 and 7 s were dropped by the rule");
});

test("no ARP answer for an on-link address: EHOSTUNREACH after the three probes (kernel: 3.08 s)", () => {
  const t = vethPair();
  let failure: TcpErrorInfo | null = null;
  let at = 0;
  unwrap(TcpStack.of(t.a).connect(ip("10.9.0.77"), 80, { onClose: (_s, e) => ((failure = e), (at = t.world.sim.now / S)) }));
  t.world.sim.run();
  assert.equal((failure as TcpErrorInfo | null)?.kind, TcpError.UNREACHABLE);
  assert.equal((failure as TcpErrorInfo | null)?.errno, "EHOSTUNREACH");
  assert.ok(at >= 3 && at < 3.1, `failed at ${at} s`);
  assertConserved(t.world);
});

test("a link that is down: SYNs dropped on the wire (LINK_DOWN), the connection times out", () => {
  const t = linked();
  t.link.up = false;
  let failure: TcpErrorInfo | null = null;
  t.a.neigh.addStatic(t.ea, ip("10.9.0.2"), t.eb.mac);
  unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 80, { onClose: (_s, e) => (failure = e) }));
  t.world.sim.run();
  assert.equal((failure as TcpErrorInfo | null)?.kind, TcpError.TIMEOUT);
  assert.equal(t.world.ledger.dropsByReason.get(DropReason.LINK_DOWN), 11);
  assertConserved(t.world);
});

test("no route: connect() fails synchronously with ENETUNREACH", () => {
  const t = vethPair();
  const r = TcpStack.of(t.a).connect(ip("192.0.2.1"), 80);
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.error.errno, "ENETUNREACH");
});
