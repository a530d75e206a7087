// The seed lab's cluster (../shared/scenarios/seed-lab.md) built from examples/seed-lab: Calico IPIP
// with /26 blocks of 10.224.0.0/16, tunl0 holding the first address of each node's block, routes to
// the other nodes' blocks present because BGP UPDATEs announced them, pods reachable across nodes,
// and NetworkPolicy enforced in the iptables personality, following store changes without a rebuild.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { DropReason } from "../../datapath/reasons.js";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { CalicoPlugin } from "../../src/cni/calico/plugin.js";
import { formatPrefix, inPrefix } from "../../src/cni/ipam/prefix.js";
import { loadFiles } from "../../src/k8s/load.js";
import { formatRoute } from "../../src/net/stack/route-table.js";
import { RingSink } from "../../src/trace/tracer.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { ping } from "./support/probes.js";

const lab = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);
const NODES = ["master30.cyh.cloud", "worker31.cyh.cloud", "worker32.cyh.cloud"];

async function buildLab(...extra: string[]): Promise<ClusterRuntime> {
  const load = await loadFiles([lab("cluster.yaml"), lab("workloads.yaml"), ...extra.map(lab)], { namespace: "web" });
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

const calico = (rt: ClusterRuntime): CalicoPlugin => {
  assert.ok(rt.plugin instanceof CalicoPlugin);
  return rt.plugin;
};

describe("seed lab: Calico IPIP, /26 blocks, BGP full mesh", () => {
  let rt: ClusterRuntime;
  before(async () => {
    rt = await buildLab();
  });

  it("builds with calico-ipip and pod MTU 1480", () => {
    assert.equal(rt.plugin.name, "calico-ipip");
    assert.equal(rt.plugin.podMtu, 1480);
    assert.deepEqual([...rt.nodes.keys()], NODES);
  });

  it("every pod's address is in a /26 block of 10.224.0.0/16 affine to its node, and written to status.podIP", () => {
    const plugin = calico(rt);
    const system = rt.pods().filter((p) => p.namespace === "kube-system");
    assert.equal(system.length, 2, "kubeadm's CoreDNS add-on: deployment coredns, 2 replicas");
    for (const p of system) assert.match(p.name, /^coredns-[a-z0-9]+-[a-z0-9]{5}$/);
    assert.deepEqual(rt.pods().filter((p) => p.namespace !== "kube-system").map((p) => [p.key, p.node]), [
      ["cyh/test", "worker31.cyh.cloud"],
      ["web/test", "worker32.cyh.cloud"],
      ["web/web1", "worker32.cyh.cloud"],
      ["web/web2", "worker31.cyh.cloud"],
    ]);
    for (const p of rt.pods()) {
      const blocks = plugin.ipam.blocksOf(p.node);
      assert.ok(blocks.some((b) => b.prefixLength === 26 && inPrefix({ address: 0x0ae00000, prefixLength: 16 }, b.address) && inPrefix(b, p.ip)), `${p.key} ${formatIPv4(p.ip)} in ${blocks.map(formatPrefix)}`);
      const stored = rt.store.get("Pod", p.namespace, p.name);
      assert.equal(stored?.status?.podIP, formatIPv4(p.ip));
    }
  });

  it("tunl0 holds the first address of its node's block; the block has a blackhole route", () => {
    const plugin = calico(rt);
    for (const name of NODES) {
      const n = rt.node(name)!;
      const block = plugin.ipam.blocksOf(name)[0]!;
      const tunl0 = n.ns.deviceByName("tunl0")!;
      assert.equal(n.ns.primaryAddress(tunl0), block.address, name);
      assert.ok(n.ns.routes.list("main").some((r) => formatRoute(r) === `blackhole ${formatPrefix(block)} proto bird`), name);
    }
  });

  it("routes to the other nodes' blocks exist because a BGP UPDATE from that node announced them", () => {
    const plugin = calico(rt);
    for (const name of NODES) {
      const n = rt.node(name)!;
      const speaker = plugin.speaker(name)!;
      assert.ok(speaker.converged, `${name}: every session Established`);
      for (const other of NODES.filter((o) => o !== name)) {
        const block = formatPrefix(plugin.ipam.blocksOf(other)[0]!);
        const peer = formatIPv4(rt.node(other)!.ip);
        const route = n.ns.routes.list("main").map(formatRoute).find((r) => r.startsWith(`${block} `));
        assert.equal(route, `${block} via ${peer} dev tunl0 proto bird onlink`);
        const update = speaker.log.find((e) => e.dir === "rx" && e.type === "UPDATE" && formatIPv4(e.peer) === peer && e.detail.includes(`announce ${block} next-hop ${peer}`));
        assert.ok(update, `${name} received the UPDATE for ${block} from ${peer}`);
        assert.ok(update.time >= 5_000_000_000, "after BIRD's 5 s connect delay and the TCP handshake");
      }
    }
  });

  it("pods reach each other on one node and across nodes; the outside client reaches a pod", () => {
    const pod = (k: string) => rt.pod(k)!;
    assert.equal(ping(rt, pod("web/test").ns, pod("web/web1").ip), true);
    assert.equal(ping(rt, pod("cyh/test").ns, pod("web/web1").ip), true);
    assert.equal(ping(rt, pod("web/web2").ns, pod("web/test").ip), true);
    assert.equal(ping(rt, rt.node("worker31.cyh.cloud")!.ns, pod("web/web1").ip), true);
    assert.equal(ping(rt, rt.externalHost("client")!.ns, rt.node("worker32.cyh.cloud")!.ip), true);
  });
});

describe("seed lab: NetworkPolicy in the iptables personality", () => {
  it("policy 06 (ingress from run=test, all ports): web/test pings web1, cyh/test is dropped with an explanation", async () => {
    const rt = await buildLab("policies/06-ingress-all-ports-from-run-test.yaml");
    const drops = new RingSink();
    rt.world.tracer.addSink({ drop: (r) => drops.drop(r) });
    const web1 = rt.pod("web/web1")!.ip;
    assert.equal(ping(rt, rt.pod("web/test")!.ns, web1), true, "same namespace, run=test");
    assert.equal(ping(rt, rt.pod("cyh/test")!.ns, web1), false, "podSelector alone means the policy's own namespace");
    const d = drops.dropRecords.find((r) => r.reason === DropReason.POLICY_DENIED);
    assert.ok(d, "a POLICY_DENIED drop record");
    assert.equal(d.node, "worker32.cyh.cloud", "enforced on the node hosting web1");
    assert.match(d.site, /filter FORWARD|cali-tw-cali/);
    assert.match(d.explanation ?? "", /my-network-policy/);
    // Relabel web/test to run=web2 through the store: the network follows without a rebuild.
    rt.store.modify("Pod", "web", "test", (p) => {
      p.metadata.labels = { run: "web2" };
    });
    assert.equal(ping(rt, rt.pod("web/test")!.ns, web1), false, "relabelled: denied");
  });

  it("a namespaceSelector policy follows `kubectl label ns cyh project=myproject`", async () => {
    const rt = await buildLab();
    rt.store.add({
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "from-myproject", namespace: "web" },
      spec: { podSelector: { matchLabels: { run: "web1" } }, policyTypes: ["Ingress"], ingress: [{ from: [{ namespaceSelector: { matchLabels: { project: "myproject" } } }] }] },
    });
    const web1 = rt.pod("web/web1")!.ip;
    assert.equal(ping(rt, rt.pod("cyh/test")!.ns, web1), false);
    rt.store.modify("Namespace", undefined, "cyh", (ns) => {
      ns.metadata.labels = { ...ns.metadata.labels, project: "myproject" };
    });
    assert.equal(ping(rt, rt.pod("cyh/test")!.ns, web1), true);
    rt.store.delete("NetworkPolicy", "web", "from-myproject");
    assert.equal(ping(rt, rt.pod("web/test")!.ns, web1), true, "policy deleted: not isolated any more");
  });
});

describe("seed lab: addresses given by the controllers' kubelets", () => {
  it("with kubelet external, a pod is wired once status.podIP holds an address from the CNI's IPAM", async () => {
    const load = await loadFiles([lab("cluster.yaml"), lab("workloads.yaml")]);
    const r = buildCluster(load, { kubelet: "external" });
    if (!r.ok) assert.fail(formatClusterError(r.error));
    const rt = r.value;
    assert.equal(rt.pods().length, 0, "no pod has an address yet");
    const allocator = rt.podIpAllocator();
    for (const p of rt.store.list("Pod")) {
      const ip = allocator.allocate(p.spec!.nodeName!, `${p.metadata.namespace}/${p.metadata.name}/${p.metadata.uid}`);
      assert.ok(ip !== null);
      rt.store.modify("Pod", p.metadata.namespace, p.metadata.name, (d) => {
        (d as { status?: unknown }).status = { ...d.status, phase: "Running", podIP: ip, podIPs: [{ ip }] };
      });
    }
    assert.equal(rt.pods().length, 4);
    for (const p of rt.pods()) assert.equal(formatIPv4(p.ip), rt.store.get("Pod", p.namespace, p.name)!.status!.podIP);
    rt.runUntilIdle();
    assert.equal(ping(rt, rt.pod("cyh/test")!.ns, rt.pod("web/web1")!.ip), true);
  });
});
