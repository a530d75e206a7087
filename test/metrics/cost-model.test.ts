// The cost model's defaults (every step has a figure and a source), `spec.costModel` overrides with
// errors that name the field, and the usage annotations workloads declare.
import { test } from "node:test";
import assert from "node:assert/strict";
import { COST_STEPS, costModelFromSpec, costSources, DEFAULT_COST_MODEL, USAGE_ANNOTATIONS, usageFromAnnotations } from "../../src/metrics/index.js";

test("every datapath step has a default cost and says where the figure comes from", () => {
  const sources = costSources();
  assert.deepEqual(sources.map((s) => s.step), [...COST_STEPS]);
  for (const s of sources) {
    assert.match(s.source, /\[(XDP|BROUER|CF|CTHALF|SLIM|CAI|IPTRULE)\]/, s.step);
    const c = DEFAULT_COST_MODEL.steps[s.step];
    assert.ok(c.packetNs + c.byteNs + c.batchNs > 0, `${s.step} costs something`);
  }
  // Orders of magnitude the sources support: an XDP-class program run is tens of ns; a new conntrack
  // entry (charged on top of the lookup its packet also does) about doubles a tracked packet's conntrack
  // work [CTHALF]; a tunnel decapsulation more than a route lookup; a rule with one match module costs
  // ~190 cycles [IPTRULE].
  const st = DEFAULT_COST_MODEL.steps;
  assert.ok(st.bpfProgram.packetNs < 100);
  assert.ok(st.conntrackInsert.packetNs >= 2 * st.conntrackLookup.packetNs);
  assert.equal(st.netfilterRule.packetNs + st.netfilterMatch.packetNs, 60);
  assert.ok(st.vxlanDecap.packetNs > st.ipipDecap.packetNs && st.ipipDecap.packetNs > st.routeLookup.packetNs);
});

test("spec.costModel overrides the clock, steps, baselines and resolution; the rest stays default", () => {
  const r = costModelFromSpec({
    cpuGHz: 2.4,
    steps: { vxlanEncap: { packetNs: 500 }, copy: { byteNs: 0.2 } },
    system: { cpu: "50m", memory: "1Gi" },
    idlePod: { cpu: "0", memory: "512Ki", cpuPerRequest: "20us" },
    conntrackEntryBytes: 384,
    resolution: "30s",
  });
  assert.ok(r.ok);
  const m = r.value;
  assert.equal(m.cpuGHz, 2.4);
  assert.deepEqual(m.steps.vxlanEncap, { ...DEFAULT_COST_MODEL.steps.vxlanEncap, packetNs: 500 });
  assert.deepEqual(m.steps.copy, { ...DEFAULT_COST_MODEL.steps.copy, byteNs: 0.2 });
  assert.deepEqual(m.steps.vxlanDecap, DEFAULT_COST_MODEL.steps.vxlanDecap);
  assert.deepEqual([m.systemCpuNanoCores, m.systemMemoryBytes, m.idleCpuNanoCores, m.idleMemoryBytes], [50_000_000, 2 ** 30, 0, 512 * 1024]);
  assert.deepEqual([m.conntrackEntryBytes, m.resolutionNs, m.idleRequestCpuNs], [384, 30e9, 20_000]);
  assert.equal(DEFAULT_COST_MODEL.idleRequestCpuNs, 7_000, "[NGINX] ~145k requests/s per core");
  assert.deepEqual(costModelFromSpec(undefined), { ok: true, value: DEFAULT_COST_MODEL });
});

test("bad spec.costModel fields: every error names its path", () => {
  const r = costModelFromSpec({
    cpuGHz: 0,
    steps: { warpDrive: { packetNs: 1 }, vxlanEncap: { packetNs: -5, perPacket: 3 } },
    system: { cpu: "lots" },
    idlePod: { cpuPerRequest: 5 },
    resolution: 15,
    extra: true,
  });
  assert.ok(!r.ok);
  assert.deepEqual(
    r.error.map((e) => e.path),
    [
      "spec.costModel.extra",
      "spec.costModel.cpuGHz",
      "spec.costModel.steps.warpDrive",
      "spec.costModel.steps.vxlanEncap.perPacket",
      "spec.costModel.steps.vxlanEncap.packetNs",
      "spec.costModel.system.cpu",
      "spec.costModel.idlePod.cpuPerRequest",
      "spec.costModel.resolution",
    ],
  );
  assert.match(r.error.find((e) => e.path.endsWith("warpDrive"))!.reason, /unknown field \(known: nicRx, /);
  assert.deepEqual(costModelFromSpec("fast"), { ok: false, error: [{ path: "spec.costModel", reason: "must be a mapping" }] });
});

test("usage annotations: Kubernetes quantities for CPU and memory, a duration per request", () => {
  const r = usageFromAnnotations({
    [USAGE_ANNOTATIONS.cpu]: "27m",
    [USAGE_ANNOTATIONS.memory]: "57Mi",
    [USAGE_ANNOTATIONS.cpuPerRequest]: "150us",
    [USAGE_ANNOTATIONS.memoryPerRequest]: "4Ki",
  });
  assert.deepEqual(r, { ok: true, value: { cpuNanoCores: 27_000_000, memoryBytes: 57 * 2 ** 20, cpuNsPerRequest: 150_000, memoryBytesPerRequest: 4096 } });
  assert.deepEqual(usageFromAnnotations({ [USAGE_ANNOTATIONS.cpu]: "0.5" }), { ok: true, value: { cpuNanoCores: 5e8, memoryBytes: 0, cpuNsPerRequest: 0, memoryBytesPerRequest: 0 } });
  assert.deepEqual(usageFromAnnotations({ other: "x" }), { ok: true, value: null });
  const bad = usageFromAnnotations({ [USAGE_ANNOTATIONS.memory]: "57MB" });
  assert.deepEqual(bad, {
    ok: false,
    error: { path: "metadata.annotations[usage.cnisim.io/memory]", reason: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" },
  });
  const negative = usageFromAnnotations({ [USAGE_ANNOTATIONS.cpu]: "-1" });
  assert.ok(!negative.ok && negative.error.reason === "must not be negative");
});
