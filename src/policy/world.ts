// The policy world: namespaces, pods, nodes and NetworkPolicies as plain validated records, with
// change notifications the compiler subscribes to. Inputs are plain objects; bad input returns a
// WorldError naming the object and field instead of throwing.
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import type { Labels } from "../k8s/selector.js";
import { parseIPv4 } from "../util/ip.js";
import { err, ok, type Result } from "../util/result.js";
import { normalizePolicy, type NormPolicy } from "./normalize.js";
import {
  NAMESPACE_NAME_LABEL,
  POLICY_PROTOCOLS,
  type ContainerPortInfo,
  type NamespaceInfo,
  type NodeInfo,
  type PodInfo,
  type PolicyProtocol,
} from "./types.js";

export type WorldError = { readonly object: string; readonly path: string; readonly reason: string };

export type NamespaceInput = { readonly name: string; readonly labels?: Readonly<Record<string, string>> };
export type ContainerPortInput = { readonly name?: string; readonly containerPort: number; readonly protocol?: string };
export type PodInput = {
  readonly namespace: string;
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly ip: string;
  readonly node: string;
  readonly ports?: readonly ContainerPortInput[];
};
export type NodeInput = { readonly name: string; readonly ips: readonly string[] };

export type StoredPolicy = { readonly raw: NetworkPolicy; readonly norm: NormPolicy };

export type WorldChange =
  | { readonly kind: "namespace"; readonly name: string; readonly before: NamespaceInfo; readonly after: NamespaceInfo }
  | { readonly kind: "pod"; readonly key: string; readonly before: PodInfo | null; readonly after: PodInfo | null }
  | { readonly kind: "node"; readonly name: string; readonly before: NodeInfo | null; readonly after: NodeInfo | null }
  | { readonly kind: "policy"; readonly key: string; readonly before: StoredPolicy | null; readonly after: StoredPolicy | null };

export type WorldListener = (change: WorldChange) => void;

function checkLabels(labels: unknown, object: string, path: string): Result<Labels, WorldError> {
  if (labels === undefined) return ok({});
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) {
    return err({ object, path, reason: "labels must be a map of strings" });
  }
  for (const [k, v] of Object.entries(labels)) {
    if (k === "" || typeof v !== "string") return err({ object, path: `${path}.${k}`, reason: "label keys and values must be strings" });
  }
  return ok({ ...(labels as Record<string, string>) });
}

export class PolicyWorld {
  private readonly namespaceLabels = new Map<string, Labels>();
  private readonly pods = new Map<string, PodInfo>();
  private readonly podsByIp = new Map<number, PodInfo>();
  private readonly nodes = new Map<string, NodeInfo>();
  private readonly nodesByIp = new Map<number, NodeInfo>();
  private readonly policies = new Map<string, StoredPolicy>();
  private readonly listeners: WorldListener[] = [];

  /** Registers a listener for every later change; returns a function that unregisters it. */
  subscribe(listener: WorldListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  private emit(change: WorldChange): void {
    for (const l of this.listeners) l(change);
  }

  // ---- namespaces

  /** Effective namespace: a namespace never created still has its metadata.name label. */
  namespace(name: string): NamespaceInfo {
    const labels = this.namespaceLabels.get(name) ?? {};
    return { name, labels: { ...labels, [NAMESPACE_NAME_LABEL]: name } };
  }

  setNamespace(input: NamespaceInput): Result<NamespaceInfo, WorldError> {
    const object = `namespace ${input.name}`;
    if (typeof input.name !== "string" || input.name === "") return err({ object, path: "metadata.name", reason: "missing name" });
    const labels = checkLabels(input.labels, object, "metadata.labels");
    if (!labels.ok) return labels;
    const before = this.namespace(input.name);
    this.namespaceLabels.set(input.name, labels.value);
    const after = this.namespace(input.name);
    this.emit({ kind: "namespace", name: input.name, before, after });
    return ok(after);
  }

  removeNamespace(name: string): boolean {
    if (!this.namespaceLabels.has(name)) return false;
    const before = this.namespace(name);
    this.namespaceLabels.delete(name);
    this.emit({ kind: "namespace", name, before, after: this.namespace(name) });
    return true;
  }

  namespaces(): NamespaceInfo[] {
    const names = new Set<string>([...this.namespaceLabels.keys()]);
    for (const p of this.pods.values()) names.add(p.namespace);
    return [...names].sort().map((n) => this.namespace(n));
  }

  // ---- pods

  pod(key: string): PodInfo | undefined {
    return this.pods.get(key);
  }

  podByIp(ip: number): PodInfo | undefined {
    return this.podsByIp.get(ip);
  }

  allPods(): IterableIterator<PodInfo> {
    return this.pods.values();
  }

  get podCount(): number {
    return this.pods.size;
  }

  setPod(input: PodInput): Result<PodInfo, WorldError> {
    const key = `${input.namespace}/${input.name}`;
    const object = `pod ${key}`;
    if (!input.namespace || !input.name) return err({ object, path: "metadata", reason: "namespace and name are required" });
    const labels = checkLabels(input.labels, object, "metadata.labels");
    if (!labels.ok) return labels;
    const ip = parseIPv4(String(input.ip));
    if (ip === null) return err({ object, path: "status.podIP", reason: `not an IPv4 address: ${JSON.stringify(input.ip)}` });
    const holder = this.podsByIp.get(ip);
    if (holder && holder.key !== key) return err({ object, path: "status.podIP", reason: `${input.ip} already belongs to pod ${holder.key}` });
    const nodeHolder = this.nodesByIp.get(ip);
    if (nodeHolder) return err({ object, path: "status.podIP", reason: `${input.ip} belongs to node ${nodeHolder.name}` });
    if (typeof input.node !== "string" || input.node === "") return err({ object, path: "spec.nodeName", reason: "missing node name" });
    const ports: ContainerPortInfo[] = [];
    for (const [i, p] of (input.ports ?? []).entries()) {
      const path = `spec.containers.ports[${i}]`;
      const protocol = (p.protocol ?? "TCP") as PolicyProtocol;
      if (!POLICY_PROTOCOLS.includes(protocol)) return err({ object, path: `${path}.protocol`, reason: `unsupported protocol ${p.protocol}` });
      if (!Number.isInteger(p.containerPort) || p.containerPort < 1 || p.containerPort > 65535) {
        return err({ object, path: `${path}.containerPort`, reason: `port ${p.containerPort} out of range 1-65535` });
      }
      ports.push({ name: p.name ?? null, port: p.containerPort, protocol });
    }
    const info: PodInfo = { key, namespace: input.namespace, name: input.name, labels: labels.value, ip, node: input.node, ports };
    const before = this.pods.get(key) ?? null;
    if (before) this.podsByIp.delete(before.ip);
    this.pods.set(key, info);
    this.podsByIp.set(ip, info);
    this.emit({ kind: "pod", key, before, after: info });
    return ok(info);
  }

  /** Replaces a pod's labels (kubectl label --overwrite of all labels). */
  setPodLabels(key: string, labels: Readonly<Record<string, string>>): Result<PodInfo, WorldError> {
    const before = this.pods.get(key);
    if (!before) return err({ object: `pod ${key}`, path: "metadata.name", reason: "no such pod" });
    const checked = checkLabels(labels, `pod ${key}`, "metadata.labels");
    if (!checked.ok) return checked;
    const after: PodInfo = { ...before, labels: checked.value };
    this.pods.set(key, after);
    this.podsByIp.set(after.ip, after);
    this.emit({ kind: "pod", key, before, after });
    return ok(after);
  }

  removePod(key: string): boolean {
    const before = this.pods.get(key);
    if (!before) return false;
    this.pods.delete(key);
    this.podsByIp.delete(before.ip);
    this.emit({ kind: "pod", key, before, after: null });
    return true;
  }

  // ---- nodes

  node(name: string): NodeInfo | undefined {
    return this.nodes.get(name);
  }

  nodeByIp(ip: number): NodeInfo | undefined {
    return this.nodesByIp.get(ip);
  }

  allNodes(): IterableIterator<NodeInfo> {
    return this.nodes.values();
  }

  setNode(input: NodeInput): Result<NodeInfo, WorldError> {
    const object = `node ${input.name}`;
    if (typeof input.name !== "string" || input.name === "") return err({ object, path: "metadata.name", reason: "missing name" });
    const ips: number[] = [];
    for (const [i, text] of input.ips.entries()) {
      const ip = parseIPv4(String(text));
      if (ip === null) return err({ object, path: `addresses[${i}]`, reason: `not an IPv4 address: ${JSON.stringify(text)}` });
      const other = this.nodesByIp.get(ip);
      if (other && other.name !== input.name) return err({ object, path: `addresses[${i}]`, reason: `${text} already belongs to node ${other.name}` });
      const pod = this.podsByIp.get(ip);
      if (pod) return err({ object, path: `addresses[${i}]`, reason: `${text} belongs to pod ${pod.key}` });
      if (!ips.includes(ip)) ips.push(ip);
    }
    const info: NodeInfo = { name: input.name, ips };
    const before = this.nodes.get(input.name) ?? null;
    if (before) for (const ip of before.ips) this.nodesByIp.delete(ip);
    this.nodes.set(input.name, info);
    for (const ip of ips) this.nodesByIp.set(ip, info);
    this.emit({ kind: "node", name: input.name, before, after: info });
    return ok(info);
  }

  removeNode(name: string): boolean {
    const before = this.nodes.get(name);
    if (!before) return false;
    this.nodes.delete(name);
    for (const ip of before.ips) this.nodesByIp.delete(ip);
    this.emit({ kind: "node", name, before, after: null });
    return true;
  }

  // ---- policies

  policy(key: string): StoredPolicy | undefined {
    return this.policies.get(key);
  }

  allPolicies(): IterableIterator<StoredPolicy> {
    return this.policies.values();
  }

  get policyCount(): number {
    return this.policies.size;
  }

  /** Adds or replaces a NetworkPolicy (keyed by namespace/name). */
  setPolicy(raw: NetworkPolicy): Result<NormPolicy, WorldError> {
    const norm = normalizePolicy(raw);
    if (!norm.ok) return err({ object: `networkpolicy ${norm.error.policy}`, path: norm.error.path, reason: norm.error.reason });
    const stored: StoredPolicy = { raw: structuredClone(raw), norm: norm.value };
    const before = this.policies.get(norm.value.key) ?? null;
    this.policies.set(norm.value.key, stored);
    this.emit({ kind: "policy", key: norm.value.key, before, after: stored });
    return ok(norm.value);
  }

  removePolicy(key: string): boolean {
    const before = this.policies.get(key);
    if (!before) return false;
    this.policies.delete(key);
    this.emit({ kind: "policy", key, before, after: null });
    return true;
  }
}
