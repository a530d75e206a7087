// Client to NodePort (issue 8's third path): the client outside the cluster (h3) reaches the server
// node's NodePort; kube-proxy DNATs it to the local iperf pod (and masquerades it, as it does for
// NodePort traffic with externalTrafficPolicy Cluster), so the server node does NAT work the pod path
// does not; bare metal has no NodePort. Throughput on an uncongested 10G link is the link's TCP rate.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_BENCH_OPTIONS, planCells, runComparison, type BenchOptions } from "../../src/perf/index.js";

const small: BenchOptions = {
  ...DEFAULT_BENCH_OPTIONS,
  flavours: ["bare-metal", "flannel-host-gw"],
  linkGbps: 10,
  hostMtus: [1500],
  streams: [1],
  protocols: ["TCP"],
  paths: ["pod-to-pod", "client-to-nodeport"],
  durationNs: 20_000_000,
};

test("bare metal gets no NodePort cell; a CNI gets one per protocol and stream count", () => {
  const cells = planCells(small);
  assert.deepEqual(
    cells.map((c) => `${c.flavour.name} ${c.path}`),
    ["bare-metal pod-to-pod", "flannel-host-gw pod-to-pod", "flannel-host-gw client-to-nodeport"],
  );
});

test("client to NodePort: link-rate TCP, with the DNAT and masquerade done on the server node", () => {
  const r = runComparison(small);
  assert.ok(r.ok, r.ok ? "" : r.error);
  const byPath = new Map(r.value.results.filter((x) => x.spec.flavour.name === "flannel-host-gw").map((x) => [x.spec.path, x]));
  const pod = byPath.get("pod-to-pod")!;
  const np = byPath.get("client-to-nodeport")!;
  const ceiling = (10e9 * 1448) / 1538 / 1e9;
  assert.ok(np.gbps > 0.9 * ceiling, `NodePort TCP at ${np.gbps} Gbit/s`);
  assert.equal(pod.server.work.packets("natRewrite"), 0, "pod to pod: no translation on the server node");
  assert.ok(np.server.work.packets("natRewrite") > 0, "NodePort: the server node rewrites (DNAT to the pod, SNAT to itself)");
});
