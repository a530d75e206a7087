// Keeps the policy world (and through it the incremental compiler) in step with the object store:
// namespaces and their labels, pods with their address and node once the CNI wired them, nodes with
// every address they hold (underlay + the CNI's tunnel/bridge addresses), and NetworkPolicies.
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import type { KubeObject } from "../k8s/types.js";
import { PolicyCompiler } from "../policy/compiler.js";
import { namespaceInputFromK8s } from "../policy/from-k8s.js";
import type { PolicyOptions } from "../policy/types.js";
import { PolicyWorld, type WorldError } from "../policy/world.js";
import { formatIPv4 } from "../util/ip.js";

export class PolicyFeed {
  readonly world = new PolicyWorld();
  readonly compiler: PolicyCompiler;
  /** Objects the policy layer refused (e.g. an invalid NetworkPolicy), as messages. */
  readonly problems: string[] = [];

  constructor(options: PolicyOptions) {
    this.compiler = new PolicyCompiler(this.world, options);
  }

  private note(r: { ok: true } | { ok: false; error: WorldError }): void {
    if (!r.ok) this.problems.push(`${r.error.object}: ${r.error.path}: ${r.error.reason}`);
  }

  setNamespace(ns: KubeObject<"Namespace">): void {
    this.note(this.world.setNamespace(namespaceInputFromK8s(ns)));
  }

  removeNamespace(name: string): void {
    this.world.removeNamespace(name);
  }

  setNode(name: string, ips: readonly number[]): void {
    this.note(this.world.setNode({ name, ips: ips.map(formatIPv4) }));
  }

  setPod(pod: KubeObject<"Pod">, ip: number, node: string): void {
    const ports = (pod.spec?.containers ?? []).flatMap((c) =>
      (c.ports ?? []).map((p) => ({ ...(p.name ? { name: p.name } : {}), containerPort: p.containerPort, protocol: p.protocol ?? "TCP" })),
    );
    const key = `${pod.metadata.namespace}/${pod.metadata.name}`;
    const before = this.world.pod(key);
    const labels = pod.metadata.labels ?? {};
    if (before !== undefined && before.ip === ip && before.node === node && JSON.stringify(before.ports.map((p) => [p.name, p.port, p.protocol])) === JSON.stringify(ports.map((p) => [p.name ?? null, p.containerPort, p.protocol]))) {
      if (JSON.stringify(before.labels) !== JSON.stringify(labels)) this.note(this.world.setPodLabels(key, labels));
      return;
    }
    this.note(this.world.setPod({ namespace: pod.metadata.namespace ?? "default", name: pod.metadata.name, labels, ip: formatIPv4(ip), node, ports }));
  }

  removePod(key: string): void {
    this.world.removePod(key);
  }

  setPolicy(p: KubeObject<"NetworkPolicy">): void {
    this.note(this.world.setPolicy(p as NetworkPolicy));
  }

  removePolicy(namespace: string, name: string): void {
    this.world.removePolicy(`${namespace}/${name}`);
  }
}
