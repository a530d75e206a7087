// kube-proxy costs: a full sync (build the ruleset + iptables-restore --noflush into a node's
// netfilter) for 10, 25 and 50 ClusterIP services of 3 endpoints, as ratios to the 10-service sync
// (restore is linear in the ruleset); building the text alone; and the first packet of a new
// connection through PREROUTING to the first / last of 50 services (long chains are indexed on
// exact dst/proto/dport), as ratios to a PREROUTING pass with no rules.
import { Bench } from "tinybench";
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import { Simulator } from "../src/engine/simulator.js";
import type { KubeObject } from "../src/k8s/index.js";
import { buildEndpointsMap, buildRuleset, ensureJumpChains, natChainNames, proxierConfig, restoreRuleset, servicePorts, type ServicePortInfo } from "../src/kubeproxy/index.js";
import { DeviceKind, NetDevice } from "../src/net/device.js";
import { NfHook } from "../src/net/netfilter/index.js";
import { NetNamespace } from "../src/net/stack/index.js";
import { NetWorld } from "../src/net/world.js";
import { SkBuff } from "../src/skb/skbuff.js";
import { unwrap } from "../src/util/result.js";
import { write16, write32 } from "../src/wire/bytes.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../src/wire/checksum.js";

const BATCH = 200;

class Nic extends NetDevice {
  readonly kind = DeviceKind.ETHERNET;
  protected xmit(): void {}
}

function objects(n: number): { ports: ServicePortInfo[]; slices: EndpointSlice[] } {
  const ports: ServicePortInfo[] = [];
  const slices: EndpointSlice[] = [];
  for (let i = 0; i < n; i++) {
    const svc: KubeObject<"Service"> = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: `svc${i}`, namespace: "bench" },
      spec: { clusterIP: `10.96.${i >> 8}.${i & 255}`, ports: [{ name: "http", port: 80, protocol: "TCP" }] },
    };
    ports.push(...servicePorts(svc).ports);
    slices.push({
      addressType: "IPv4",
      metadata: { name: `svc${i}-1`, namespace: "bench", labels: { "kubernetes.io/service-name": `svc${i}` } },
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      endpoints: [0, 1, 2].map((k) => ({ addresses: [`10.244.${(i * 3 + k) >> 8}.${(i * 3 + k) & 255}`] })),
    });
  }
  return { ports, slices };
}

const config = unwrap(proxierConfig({ nodeName: "node-a" }));

function node(): { ns: NetNamespace; dev: Nic } {
  const world = new NetWorld(new Simulator({ seed: 1 }));
  const ns = new NetNamespace(world, "node", "node-a");
  const dev = new Nic(world, "eth0", 0x020000000001, 1500);
  ns.addDevice(dev);
  ns.addAddress(dev, 0x0a01081f, 24);
  return { ns, dev };
}

function syncer(n: number, load = true): () => void {
  const { ns } = node();
  const { ports, slices } = objects(n);
  const endpoints = buildEndpointsMap(slices, "node-a");
  if (!load) return () => void buildRuleset(config, { services: ports, endpoints, existingNatChains: natChainNames(ns.netfilter) });
  return () => {
    unwrap(ensureJumpChains(ns.netfilter));
    const r = buildRuleset(config, { services: ports, endpoints, existingNatChains: natChainNames(ns.netfilter) });
    unwrap(restoreRuleset(ns.netfilter, r.text));
  };
}

/** A node with `n` services loaded, sending new TCP SYNs to service `target`'s ClusterIP. */
function packets(n: number, target: number, withRules: boolean): () => void {
  const { ns, dev } = node();
  if (withRules) {
    const { ports, slices } = objects(n);
    unwrap(ensureJumpChains(ns.netfilter));
    unwrap(restoreRuleset(ns.netfilter, buildRuleset(config, { services: ports, endpoints: buildEndpointsMap(slices, "node-a"), existingNatChains: new Set() }).text));
  } else {
    ns.netfilter.conntrackMode = "on";
  }
  const pkt = new Uint8Array(40);
  pkt[0] = 0x45;
  write16(pkt, 2, 40);
  pkt[8] = 64;
  pkt[9] = 6;
  write32(pkt, 12, 0x0af40a02);
  write32(pkt, 16, (0x0a600000 + (target >> 8) * 256 + (target & 255)) >>> 0);
  write16(pkt, 22, 80);
  pkt[32] = 0x50;
  pkt[33] = 0x02;
  const skb = SkBuff.fromBytes(ns.world.ledger.admit(), pkt);
  const head = skb.head;
  let sport = 1024;
  return () => {
    for (let i = 0; i < BATCH; i++) {
      skb.head = head;
      skb.tail = head + 40;
      skb.data.set(pkt, head);
      write16(skb.data, head + 20, sport);
      sport = sport >= 65000 ? 1024 : sport + 1;
      setIpv4HeaderChecksum(skb.data, head, 20);
      setL4ChecksumV4(skb.data, head + 20, 20, 6, 0x0af40a02, (0x0a600000 + target) >>> 0);
      skb.ctEntry = -1;
      skb.ctState = 0;
      skb.mark = 0;
      skb.natApplied = 0;
      ns.netfilter.run(NfHook.PREROUTING, skb, dev, null);
    }
    ns.netfilter.conntrack.flush();
  };
}

const bench = new Bench({ time: 500, warmupTime: 300 });
bench.add("sync: 10 services x 3 endpoints", syncer(10));
bench.add("sync: 25 services x 3 endpoints", syncer(25));
bench.add("sync: 50 services x 3 endpoints", syncer(50));
bench.add("sync: 50 services, build the text only", syncer(50, false));
bench.add("SYN through PREROUTING, no rules (conntrack on)", packets(0, 0, false));
bench.add("SYN to the first of 50 ClusterIPs (DNAT)", packets(50, 0, true));
bench.add("SYN to the last of 50 ClusterIPs (DNAT)", packets(50, 49, true));
await bench.run();

const mean = (name: string): number => {
  const r = bench.tasks.find((t) => t.name === name)?.result;
  return r !== undefined && "latency" in r ? r.latency.mean : Number.NaN;
};
const syncBase = mean("sync: 10 services x 3 endpoints");
const pktBase = mean("SYN through PREROUTING, no rules (conntrack on)");
console.table(
  bench.tasks.map((t) => {
    const isSync = t.name.startsWith("sync");
    const ms = mean(t.name);
    return {
      task: t.name,
      "time per op": isSync ? `${ms.toFixed(2)} ms/sync` : `${((ms / BATCH) * 1000).toFixed(2)} us/packet`,
      ratio: (ms / (isSync ? syncBase : pktBase)).toFixed(2),
      baseline: isSync ? "10-service sync" : "no rules",
    };
  }),
);
