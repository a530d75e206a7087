// The comparison runner: the CPU model bounds throughput (a slower clock makes a single stream
// CPU-bound with its core saturated, a faster one leaves it bound by the link), the same flags and
// seed give the same bytes, and the outputs carry the JSON shape, the table and the chart.
import { test } from "node:test";
import assert from "node:assert/strict";
import { comparisonJson, DEFAULT_BENCH_OPTIONS, formatComparison, renderSvg, runComparison, throughputSpec, type BenchOptions } from "../../src/perf/index.js";

const small: BenchOptions = {
  ...DEFAULT_BENCH_OPTIONS,
  flavours: ["bare-metal", "flannel-vxlan"],
  linkGbps: 10,
  hostMtus: [1500],
  streams: [1],
  protocols: ["TCP"],
  paths: ["pod-to-pod"],
  durationNs: 20_000_000,
};

test("a core too slow for the link bounds a single stream, and its busy share reaches saturation", () => {
  const fast = runComparison({ ...small, flavours: ["bare-metal"], cpuGHz: 6 });
  const slow = runComparison({ ...small, flavours: ["bare-metal"], cpuGHz: 1 });
  assert.ok(fast.ok && slow.ok);
  const f = fast.value.results[0]!;
  const s = slow.value.results[0]!;
  const ceiling = (10e9 * 1448) / 1538 / 1e9;
  assert.ok(f.gbps > 0.9 * ceiling, `fast CPU: link-bound at ${f.gbps}`);
  assert.ok(Math.max(f.client.coreBusy, f.server.coreBusy) < 0.9, "fast CPU: cores not saturated");
  assert.ok(s.gbps < 0.75 * f.gbps, `slow CPU: ${s.gbps} well below ${f.gbps}`);
  assert.ok(Math.max(s.client.coreBusy, s.server.coreBusy) > 0.95, "slow CPU: a core saturated");
});

test("same flags and seed print the same bytes; JSON has the issue's shape", async () => {
  const a = runComparison(small);
  const b = runComparison(small);
  assert.ok(a.ok && b.ok);
  const ja = comparisonJson(a.value);
  assert.equal(ja, comparisonJson(b.value));
  assert.equal(formatComparison(a.value), formatComparison(b.value));
  const parsed = JSON.parse(ja) as { results: Record<string, unknown>[] };
  assert.equal(parsed.results.length, 2);
  const flannel = parsed.results.find((r) => r.cni === "flannel-vxlan")!;
  assert.deepEqual(Object.keys(flannel).slice(0, 10), ["cni", "linkGbps", "hostMtu", "podMtu", "streams", "path", "protocol", "gbps", "cpu", "retransmits"]);
  assert.equal(flannel.podMtu, 1450, "flannel's VXLAN leaves 1500 - 50");
  assert.equal(flannel.path, "pod-to-pod");
  const cpu = flannel.cpu as { client: number; server: number };
  assert.ok(cpu.client > 0 && cpu.client < 1 && cpu.server > 0 && cpu.server < 1);
  const svg = await renderSvg(throughputSpec(a.value));
  assert.match(svg, /^<svg/);
  assert.match(svg, /flannel-vxlan/);
  assert.match(formatComparison(a.value), /flannel-vxlan \(host MTU 1500\): .*VXLAN encapsulation costs \d+ ns per packet/);
});

test("TCP_RR: the encapsulating path's CPU per transaction lengthens every transaction", () => {
  const r = runComparison({ ...small, flavours: ["bare-metal", "calico-vxlan"], protocols: ["TCP_RR"], durationNs: 10_000_000 });
  assert.ok(r.ok);
  const [bare, vxlan] = r.value.results;
  assert.ok(bare?.rr && vxlan?.rr);
  assert.ok(vxlan.rr.p50Us > bare.rr.p50Us, `${vxlan.rr.p50Us} > ${bare.rr.p50Us}`);
  assert.ok(vxlan.rr.transactionsPerSecond < bare.rr.transactionsPerSecond);
  // Four link traversals of 5 us plus both sides' CPU: more than the network alone.
  assert.ok(bare.rr.p50Us > 20);
});

test("bad options are refused with the flag named", () => {
  const r = runComparison({ ...small, streams: [0] });
  assert.ok(!r.ok);
  assert.match(r.error, /^--streams/);
  const m = runComparison({ ...small, hostMtus: [100] });
  assert.ok(!m.ok);
  assert.match(m.error, /^--mtu/);
  // Refused as the flag, not as an error in a cluster file the user never wrote.
  for (const seed of [-5, 2 ** 32, 1.5]) {
    const s = runComparison({ ...small, seed });
    assert.ok(!s.ok, `seed ${seed}`);
    assert.equal(s.error, `--seed: ${seed} is not a seed between 0 and 4294967295`);
  }
  // A repeated value would run its cells twice and print their rows twice.
  const twice: [Partial<BenchOptions>, string][] = [
    [{ flavours: ["bare-metal", "flannel-vxlan", "bare-metal"] }, "--cni: bare-metal is given twice"],
    [{ hostMtus: [1500, 9000, 1500] }, "--mtu: 1500 is given twice"],
    [{ streams: [1, 1] }, "--streams: 1 is given twice"],
    [{ protocols: ["TCP", "TCP"] }, "--tests: TCP is given twice"],
    [{ paths: ["pod-to-pod", "pod-to-pod"] }, "--paths: pod-to-pod is given twice"],
  ];
  for (const [o, message] of twice) {
    const t = runComparison({ ...small, ...o });
    assert.ok(!t.ok && t.error === message, t.ok ? message : t.error);
  }
  const q = runComparison({ ...small, hostMtus: [1500, 9000], queueBytes: 4096 });
  assert.ok(!q.ok);
  assert.equal(q.error, "--queue: 4096 bytes at --mtu 9000: must hold at least one full frame, 9038 bytes on the wire (MTU 9000 + 14 + 24)");
});

test("--queue sets the underlay NICs' transmit queue: a deep one spares 8 streams the tail drops of the default", () => {
  const o: BenchOptions = { ...small, flavours: ["bare-metal"], linkGbps: 40, hostMtus: [9000], streams: [8], durationNs: 100_000_000 };
  const shallow = runComparison(o);
  const deep = runComparison({ ...o, queueBytes: 32 * 1024 * 1024 });
  assert.ok(shallow.ok && deep.ok);
  const s = shallow.value.results[0]!;
  const d = deep.value.results[0]!;
  assert.ok(s.retransmits > 100, `default 1,514,000-byte queue: ${s.retransmits} retransmits`);
  assert.equal(d.retransmits, 0);
  assert.ok(d.gbps > 39, `still link-bound: ${d.gbps}`);
  assert.match(formatComparison(deep.value), /NIC transmit queues of 33554432 bytes/);
});
