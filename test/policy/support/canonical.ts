// Builds worlds from generated clusters and renders a compiler's datapath state in a form that
// does not depend on identity numbering (identities become their keys), so an incrementally
// maintained compiler can be compared with a fresh full compile.
import { PolicyCompiler } from "../../../src/policy/compiler.js";
import type { PolicyOptions } from "../../../src/policy/types.js";
import { PolicyWorld } from "../../../src/policy/world.js";
import { formatIPv4, parseIPv4 } from "../../../src/util/ip.js";
import { EXTERNAL_IPS, GEN_NODES, type Change, type GenCluster } from "./arbitrary.js";

/** Applies a generated cluster to a world; inputs the world rejects (e.g. address clashes) are skipped. */
export function populate(world: PolicyWorld, c: GenCluster): void {
  for (const n of GEN_NODES) world.setNode(n);
  for (const ns of c.namespaces) world.setNamespace(ns);
  for (const p of c.pods) world.setPod(p);
  for (const p of c.policies) world.setPolicy(p);
}

export function applyChange(world: PolicyWorld, ch: Change): void {
  const pods = [...world.allPods()];
  const policies = [...world.allPolicies()];
  switch (ch.kind) {
    case "setPod":
      world.setPod(ch.pod);
      return;
    case "removePod":
      if (pods.length > 0) world.removePod(pods[ch.index % pods.length]!.key);
      return;
    case "relabelPod":
      if (pods.length > 0) world.setPodLabels(pods[ch.index % pods.length]!.key, ch.labels);
      return;
    case "setNamespace":
      world.setNamespace(ch.ns);
      return;
    case "setPolicy":
      world.setPolicy(ch.policy);
      return;
    case "removePolicy":
      if (policies.length > 0) world.removePolicy(policies[ch.index % policies.length]!.norm.key);
      return;
    case "setNode":
      world.setNode(ch.node);
      return;
  }
}

/** An incrementally fed compiler: attached to an empty world before anything is added. */
export function incrementalFor(c: GenCluster, options: PolicyOptions): { world: PolicyWorld; compiler: PolicyCompiler } {
  const world = new PolicyWorld();
  const compiler = new PolicyCompiler(world, options);
  populate(world, c);
  return { world, compiler };
}

const PROBES = [
  ...EXTERNAL_IPS,
  ...GEN_NODES.flatMap((n) => n.ips),
  "10.0.0.2",
  "203.0.113.9",
  "0.0.0.0",
  "255.255.255.255",
  "10.0.0.0",
  "10.0.0.7",
  "10.0.1.16",
  "10.0.1.31",
  "203.0.113.127",
  "203.0.113.128",
];

/** Datapath state with identities spelled by key: per endpoint its entries, per node ipcache answers. */
export function canonicalState(compiler: PolicyCompiler): string[] {
  const idKey = (id: number) => (id === 0 ? "*" : (compiler.identities.key(id) ?? `?${id}`));
  const out: string[] = [];
  const world = compiler.world;
  for (const pod of world.allPods()) {
    const ep = compiler.endpoint(pod.key);
    if (!ep) {
      out.push(`${pod.key}: no endpoint`);
      continue;
    }
    const entries = ep.map.dump().map((e) => `${pod.key} ${e.direction} ${idKey(e.identity)} ${e.proto} ${e.portLo}-${e.portHi} v${e.verdict}`);
    out.push(...entries.sort());
  }
  const probes = [...PROBES, ...[...world.allPods()].map((p) => formatIPv4(p.ip))];
  for (const node of compiler.nodeNames().sort()) {
    const ipcache = compiler.ipcacheOf(node)!;
    out.push(`${node} ipcache size ${ipcache.v4.size}`);
    for (const ip of probes) {
      const id = ipcache.lookupV4(parseIPv4(ip)!);
      out.push(`${node} ${ip} -> ${idKey(id)} /${ipcache.lastPrefixLen} tun ${formatIPv4(ipcache.lastTunnelEndpoint)}`);
    }
  }
  return out;
}
