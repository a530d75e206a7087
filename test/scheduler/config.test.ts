// KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) profiles: the default profile's
// plugin order and weights (apis/config/v1/default_plugins.go), merging of enabled/disabled sets,
// MultiPoint expansion, scoring strategies and plugin args, and errors naming file:line:col and path.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatDiagnostic } from "../../src/k8s/index.js";
import { defaultProfile, loadSchedulerConfiguration, loadSchedulerProfile, Scheduler } from "../../src/scheduler/index.js";
import { SeededRng } from "../../src/util/rng.js";
import { addYaml, seedLabStore, W31, W32 } from "./helpers.js";

test("the default profile: filter order, score plugins and weights of kube-scheduler 1.30", () => {
  const p = defaultProfile();
  assert.deepEqual(p.plugins.points.filter, [
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
  ]);
  assert.deepEqual(p.plugins.points.score, ["TaintToleration", "NodeAffinity", "NodeResourcesFit", "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation", "ImageLocality"]);
  assert.deepEqual(p.plugins.weights, {
    TaintToleration: 3,
    NodeAffinity: 2,
    NodeResourcesFit: 1,
    PodTopologySpread: 2,
    InterPodAffinity: 2,
    NodeResourcesBalancedAllocation: 1,
    ImageLocality: 1,
  });
  assert.deepEqual(p.plugins.points.postFilter, ["DefaultPreemption"]);
  assert.deepEqual(p.plugins.points.queueSort, ["PrioritySort"]);
  assert.deepEqual(p.plugins.points.bind, ["DefaultBinder"]);
  assert.equal(p.args.NodeResourcesFit.scoringStrategy.type, "LeastAllocated");
});

const BIN_PACKING = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
    pluginConfig:
    - name: NodeResourcesFit
      args:
        scoringStrategy:
          resources:
          - name: cpu
            weight: 1
          - name: memory
            weight: 1
          - name: intel.com/foo
            weight: 3
          requestedToCapacityRatio:
            shape:
            - utilization: 0
              score: 0
            - utilization: 100
              score: 10
          type: RequestedToCapacityRatio
`;

test("a profile from the Kubernetes docs' bin-packing example loads with its strategy, resources and shape", () => {
  const r = loadSchedulerProfile(BIN_PACKING, "binpack.yaml");
  assert.ok(r.ok, r.ok ? "" : r.error.map(formatDiagnostic).join("\n"));
  const s = r.value.args.NodeResourcesFit.scoringStrategy;
  assert.equal(s.type, "RequestedToCapacityRatio");
  assert.deepEqual(s.resources.map((x) => `${x.name}=${x.weight}`), ["cpu=1", "memory=1", "intel.com/foo=3"]);
  assert.deepEqual(s.shape, [
    { utilization: 0, score: 0 },
    { utilization: 100, score: 10 },
  ]);
  assert.deepEqual(r.value.plugins.weights["NodeResourcesFit"], 1);
});

test("MostAllocated packs pods onto the busier node, where LeastAllocated spreads them", () => {
  const most = loadSchedulerProfile(
    `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
  plugins:
    score:
      disabled: [{name: PodTopologySpread}, {name: NodeResourcesBalancedAllocation}]
`,
    "most.yaml",
  );
  assert.ok(most.ok);
  assert.ok(!most.value.plugins.points.score.includes("PodTopologySpread"));
  assert.ok(most.value.plugins.points.filter.includes("PodTopologySpread"), "disabling at score leaves the filter");
  const place = (profile: typeof most.value | undefined): string | null => {
    const store = seedLabStore("apiVersion: v1\nkind: Namespace\nmetadata: {name: scheduler}\n");
    const s = new Scheduler(store, { rng: new SeededRng(7), ...(profile === undefined ? {} : { profile }) });
    addYaml(store, `apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  nodeName: ${W31}\n  containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]\n`);
    addYaml(store, `apiVersion: v1\nkind: Pod\nmetadata: {name: small}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: 100Mi}}}]\n`);
    return s.scheduleAll()[0]!.node;
  };
  assert.equal(place(most.value), W31);
  assert.equal(place(undefined), W32);
});

test("plugins: a re-configured default keeps its place, weights come from score then multiPoint, '*' disables all", () => {
  const r = loadSchedulerProfile(
    `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    multiPoint:
      enabled: [{name: NodeAffinity, weight: 7}]
    score:
      enabled: [{name: TaintToleration, weight: 9}]
    preScore:
      disabled: [{name: "*"}]
`,
    "custom.yaml",
  );
  assert.ok(r.ok);
  assert.equal(r.value.plugins.weights["NodeAffinity"], 7);
  assert.equal(r.value.plugins.weights["TaintToleration"], 9);
  assert.equal(r.value.plugins.points.score[0], "TaintToleration", "score-specific plugins come first");
  assert.deepEqual(r.value.plugins.points.preScore, []);
});

test("several profiles: each pod is scheduled by the profile its schedulerName names; other pods are left alone", () => {
  const c = loadSchedulerConfiguration(
    `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 50
profiles:
- schedulerName: default-scheduler
- schedulerName: no-scoring
  percentageOfNodesToScore: 20
  plugins:
    score:
      disabled: [{name: "*"}]
`,
    "two.yaml",
  );
  assert.ok(c.ok);
  assert.deepEqual(c.value.configuration.profiles.map((p) => [p.schedulerName, p.percentageOfNodesToScore]), [
    ["default-scheduler", null],
    ["no-scoring", 20],
  ]);
  assert.equal(c.value.configuration.percentageOfNodesToScore, 50);
  const store = seedLabStore("apiVersion: v1\nkind: Namespace\nmetadata: {name: scheduler}\n");
  const s = new Scheduler(store, { rng: new SeededRng(1), configuration: c.value.configuration });
  addYaml(store, "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {schedulerName: no-scoring, containers: [{name: c, image: i}]}\n");
  addYaml(store, "apiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec: {schedulerName: someone-else, containers: [{name: c, image: i}]}\n");
  const results = s.scheduleAll();
  assert.deepEqual(results.map((r) => r.pod), ["scheduler/a"]);
  assert.deepEqual(results[0]!.scores, {}, "no score plugins: the first feasible node is taken");
  assert.deepEqual(s.pending(), []);
});

test("errors name file:line:col, the object and the field path", () => {
  const bad = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  plugins:
    filter:
      enabled:
      - name: NodeAffinityy
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: LeastRequested
        resources:
        - {name: cpu, weight: 101}
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 200}
  - name: PodTopologySpread
    args:
      defaultConstraints:
      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}
  surprise: true
`;
  const r = loadSchedulerProfile(bad, "bad.yaml");
  assert.ok(!r.ok);
  assert.deepEqual(r.error.map(formatDiagnostic), [
    'bad.yaml:8:15: KubeSchedulerConfiguration: profiles[0].plugins.filter.enabled[0].name: "NodeAffinityy" does not exist (not a kube-scheduler 1.30 in-tree plugin)',
    'bad.yaml:13:15: KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "LeastRequested": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"',
    "bad.yaml:15:31: KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: not in valid range [1, 100]",
    "bad.yaml:17:35: KubeSchedulerConfiguration: profiles[0].pluginConfig[1].args.hardPodAffinityWeight: Invalid value: 200: not in valid range [0, 100]",
    'bad.yaml:21:7: KubeSchedulerConfiguration: profiles[0].pluginConfig[2].args.defaultConstraints: Invalid value: when .defaultingType is "System", .defaultConstraints must be empty',
    'bad.yaml:22:13: KubeSchedulerConfiguration: profiles[0].surprise: unknown field "surprise"',
  ]);
  const v = loadSchedulerProfile("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n", "old.yaml");
  assert.ok(!v.ok);
  assert.deepEqual(v.error.map(formatDiagnostic), ['old.yaml:1:13: KubeSchedulerConfiguration: apiVersion: must be "kubescheduler.config.k8s.io/v1", not "kubescheduler.config.k8s.io/v1beta3"']);
  const y = loadSchedulerProfile("profiles: [\n", "broken.yaml");
  assert.ok(!y.ok);
  assert.match(formatDiagnostic(y.error[0]!), /^broken\.yaml:\d+:\d+: KubeSchedulerConfiguration: yaml: /);
});
