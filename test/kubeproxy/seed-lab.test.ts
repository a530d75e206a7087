// The seed lab's YAML (examples/seed-lab) through the API-server pieces and kube-proxy: the
// Services keep the ClusterIPs and NodePorts the lab printed, pods get endpoints once the kubelet
// reports an address, and each node's ruleset has the NodePorts with masquerade (Cluster policy)
// and no masquerade for ClusterIP traffic (clusterCIDR unset).
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { buildClusterModel, loadFiles, storeFromLoad } from "../../src/k8s/index.js";
import { buildEndpointsMap, buildRuleset, EndpointsController, proxierConfig, ServiceAllocator, servicePorts } from "../../src/kubeproxy/index.js";
import { SeededRng } from "../../src/util/rng.js";
import { unwrap } from "../../src/util/result.js";

test("seed lab: services keep the lab's addresses; NodePorts masquerade, ClusterIPs do not", async () => {
  const dir = path.resolve(process.cwd(), "examples/seed-lab");
  const loaded = await loadFiles([path.join(dir, "cluster.yaml"), path.join(dir, "workloads.yaml")]);
  assert.deepEqual(loaded.errors, []);
  const store = storeFromLoad(loaded);
  const model = unwrap(buildClusterModel(loaded.cluster!.object, store.list("Node")));
  const net = model.network!;
  assert.equal(net.kubeProxy.clusterCIDR, null);
  const alloc = unwrap(ServiceAllocator.create({ serviceCIDR: net.serviceCIDR.text, nodePortRange: net.kubeProxy.nodePortRange }, new SeededRng(model.seed)));
  assert.deepEqual(alloc.allocateStore(store), []);
  const web1 = store.get("Service", "web", "web1")!;
  assert.deepEqual([web1.spec!.clusterIP, web1.spec!.ports![0]!.nodePort], ["10.103.36.143", 30790]);

  const ctl = new EndpointsController(store);
  ctl.start();
  // What the kubelet reports once web1 runs on worker32 (address from worker32's block).
  unwrap(
    store.modify("Pod", "web", "web1", (p) => {
      (p as { status?: unknown }).status = { ...p.status, phase: "Running", podIP: "10.224.194.2", podIPs: [{ ip: "10.224.194.2" }], conditions: [{ type: "Ready", status: "True" }] };
    }),
  );
  for (const node of model.nodes) {
    const cfg = unwrap(proxierConfig({ nodeName: node.name, nodeIP: node.ip }));
    const ports = store.list("Service").flatMap((s) => servicePorts(s).ports);
    const text = buildRuleset(cfg, { services: ports, endpoints: buildEndpointsMap(ctl.list(), node.name), existingNatChains: new Set() }).text;
    const lines = text.split("\n");
    assert.ok(lines.some((l) => /^-A KUBE-NODEPORTS -m comment --comment web\/web1 -m tcp -p tcp --dport 30790 -j KUBE-EXT-/.test(l)), node.name);
    assert.ok(lines.some((l) => /^-A KUBE-EXT-\S+ -m comment --comment "masquerade traffic for web\/web1 external destinations" -j KUBE-MARK-MASQ$/.test(l)));
    assert.ok(lines.some((l) => l.endsWith("-j DNAT --to-destination 10.224.194.2:80")));
    assert.ok(!lines.some((l) => l.startsWith("-A KUBE-SVC-") && l.includes("cluster IP") && l.includes("KUBE-MARK-MASQ")), "no off-cluster masquerade rule without clusterCIDR");
    assert.ok(lines.includes('-A KUBE-SERVICES -m comment --comment "web/web2 has no endpoints" -m tcp -p tcp -d 10.111.250.224 --dport 80 -j REJECT'), "web2 has no address yet");
    assert.ok(lines.some((l) => l.includes("--or-mark 0x00004000")), "kube-proxy's mark text (%#08x of 1<<14)");
  }
});
