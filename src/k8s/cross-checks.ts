// Rules that involve several objects: duplicates, one Cluster, Node objects that name
// cluster nodes, Service nodePorts and clusterIPs against the Cluster's ranges, requested pod
// addresses inside the pod pool, pods bound to unknown nodes, and undeclared namespaces.
import type { Pod, Service } from "kubernetes-types/core/v1.js";
import { parseIPv4 } from "../util/ip.js";
import { parseIpv4Network, prefixContains, type Ipv4Prefix } from "./addresses.js";
import { CLUSTER_DEFAULTS, DEFAULT_POD_CIDR, parsePortRange } from "./cluster-defaults.js";
import type { Cluster } from "./cluster-types.js";
import { CALICO_IP_ANNOTATION, requestedAddresses } from "./checks/objects.js";
import { Severity } from "./diagnostics.js";
import { nearestPos, type LoadState, type ObjectRecord } from "./load-state.js";

/** Namespaces every cluster has. */
export const BUILTIN_NAMESPACES = ["default", "kube-node-lease", "kube-public", "kube-system"] as const;

const where = (r: ObjectRecord): string => `${r.source.file}:${r.source.line}:${r.source.col}`;
const metaOf = (r: ObjectRecord): { name: string; namespace?: string } => r.object["metadata"] as { name: string; namespace?: string };

/** Runs the cross-object rules; returns the records that remain accepted. */
export function crossCheck(state: LoadState): ObjectRecord[] {
  const rejected = new Set<ObjectRecord>();
  const fail = (r: ObjectRecord, path: string, message: string): void => {
    state.report(Severity.ERROR, r.source.file, nearestPos(r.positions, path, r.source), r.label, path, message);
    rejected.add(r);
  };
  const warn = (r: ObjectRecord, path: string, message: string): void =>
    state.report(Severity.WARNING, r.source.file, nearestPos(r.positions, path, r.source), r.label, path, message);

  const firstOf = new Map<string, ObjectRecord>();
  for (const r of state.records) {
    const m = metaOf(r);
    const key = `${r.kind}/${m.namespace ?? ""}/${m.name}`;
    const first = firstOf.get(key);
    if (first === undefined) firstOf.set(key, r);
    else if (r.kind === "Cluster") fail(r, "", `only one Cluster may be given; the first is at ${where(first)}`);
    else fail(r, "metadata.name", `duplicate ${r.label}: first defined at ${where(first)}`);
  }
  const clusters = state.records.filter((r) => r.kind === "Cluster");
  for (const extra of clusters.slice(1)) if (!rejected.has(extra)) fail(extra, "", `only one Cluster may be given; the first is at ${where(clusters[0]!)}`);
  const cluster = clusters[0]?.object as Cluster | undefined;
  const live = (): ObjectRecord[] => state.records.filter((r) => !rejected.has(r));
  const ofKind = (kind: string): ObjectRecord[] => live().filter((r) => r.kind === kind);

  const clusterNodes = new Set((cluster?.spec.nodes ?? []).map((n) => n.name));
  if (cluster !== undefined) {
    for (const r of ofKind("Node")) {
      const name = metaOf(r).name;
      if (!clusterNodes.has(name)) fail(r, "metadata.name", `node ${JSON.stringify(name)} is not in Cluster ${cluster.metadata.name} (spec.nodes)`);
    }
  }
  checkServices(ofKind("Service"), cluster, fail);
  checkPodAddresses(ofKind("Pod"), cluster, fail);

  const knownNodes = new Set([...clusterNodes, ...ofKind("Node").map((r) => metaOf(r).name)]);
  if (knownNodes.size > 0) {
    for (const r of ofKind("Pod")) {
      const nodeName = (r.object as Pod).spec?.nodeName;
      if (nodeName !== undefined && !knownNodes.has(nodeName)) {
        warn(r, "spec.nodeName", `node ${JSON.stringify(nodeName)} does not exist: the pod will never run`);
      }
    }
  }
  const declared = new Set<string>([...BUILTIN_NAMESPACES, ...ofKind("Namespace").map((r) => metaOf(r).name)]);
  for (const r of live()) {
    const ns = metaOf(r).namespace;
    if (ns === undefined || declared.has(ns)) continue;
    declared.add(ns);
    warn(r, "metadata.namespace", `namespace ${JSON.stringify(ns)} is not defined in these files; it is created implicitly (an API server would answer: namespaces "${ns}" not found)`);
  }
  return live();
}

type Fail = (r: ObjectRecord, path: string, message: string) => void;

function checkServices(services: ObjectRecord[], cluster: Cluster | undefined, fail: Fail): void {
  const range = parsePortRange(cluster?.spec.kubeProxy?.nodePortRange ?? CLUSTER_DEFAULTS.nodePortRange)!;
  const cidrText = cluster?.spec.serviceCIDR ?? CLUSTER_DEFAULTS.serviceCIDR;
  const parsed = parseIpv4Network(cidrText);
  const serviceCidr = "prefix" in parsed ? parsed.prefix : null;
  const nodePorts = new Map<number, string>();
  const clusterIps = new Map<string, string>();
  for (const r of services) {
    const spec = (r.object as Service).spec ?? {};
    const own = new Set<number>();
    (spec.ports ?? []).forEach((port, i) => {
      const np = port.nodePort;
      if (np === undefined) return;
      const path = `spec.ports[${i}].nodePort`;
      if (np < range.min || np > range.max) {
        fail(r, path, `invalid value ${np}: provided port is not in the valid range. The range of valid ports is ${range.min}-${range.max}`);
        return;
      }
      const other = nodePorts.get(np);
      if (other !== undefined && !own.has(np)) fail(r, path, `invalid value ${np}: provided port is already allocated (to ${other})`);
      else nodePorts.set(np, r.label);
      own.add(np);
    });
    const ip = spec.clusterIP;
    if (ip === undefined || ip === "" || ip === "None" || serviceCidr === null) continue;
    const v4 = parseIPv4(ip);
    if (v4 === null || !prefixContains(serviceCidr, v4)) {
      fail(r, "spec.clusterIP", `failed to allocate IP ${ip}: the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${cidrText}`);
      continue;
    }
    const other = clusterIps.get(ip);
    if (other !== undefined) fail(r, "spec.clusterIP", `failed to allocate IP ${ip}: provided IP is already allocated (to ${other})`);
    else clusterIps.set(ip, r.label);
  }
}

function podPool(cluster: Cluster): { text: string; prefix: Ipv4Prefix } | null {
  const text = cluster.spec.cni.podCIDR ?? DEFAULT_POD_CIDR[cluster.spec.cni.plugin] ?? cluster.spec.underlay.subnet;
  const r = parseIpv4Network(text);
  return "prefix" in r ? { text, prefix: r.prefix } : null;
}

function checkPodAddresses(pods: ObjectRecord[], cluster: Cluster | undefined, fail: Fail): void {
  const pool = cluster === undefined ? null : podPool(cluster);
  const taken = new Map<string, string>();
  for (const r of pods) {
    const pod = r.object as Pod;
    const requested: { ip: string; path: string }[] = [];
    const ann = pod.metadata?.annotations?.[CALICO_IP_ANNOTATION];
    for (const ip of ann === undefined ? [] : (requestedAddresses(ann) ?? [])) {
      requested.push({ ip, path: `metadata.annotations[${CALICO_IP_ANNOTATION}]` });
    }
    if (pod.status?.podIP !== undefined && !requested.some((x) => x.ip === pod.status?.podIP)) {
      requested.push({ ip: pod.status.podIP, path: "status.podIP" });
    }
    for (const { ip, path } of requested) {
      const v4 = parseIPv4(ip);
      if (pool !== null && (v4 === null || !prefixContains(pool.prefix, v4))) {
        fail(r, path, `requested address ${ip} is not inside the pod CIDR ${pool.text}`);
        continue;
      }
      const other = taken.get(ip);
      if (other !== undefined) fail(r, path, `requested address ${ip} is already requested by ${other}`);
      else taken.set(ip, r.label);
    }
  }
}
