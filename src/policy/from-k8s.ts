// Converts Kubernetes API objects (kubernetes-types shapes) into the policy world's plain inputs,
// so whoever loads YAML can feed the policy layer without this layer depending on the loader.
import type { Namespace, Node, Pod } from "kubernetes-types/core/v1.js";
import { err, ok, type Result } from "../util/result.js";
import type { NamespaceInput, NodeInput, PodInput, WorldError } from "./world.js";

export function namespaceInputFromK8s(ns: Namespace): NamespaceInput {
  return { name: ns.metadata?.name ?? "", labels: ns.metadata?.labels ?? {} };
}

/** A pod needs its IP (status.podIP) and node (spec.nodeName); named ports come from every container. */
export function podInputFromK8s(pod: Pod): Result<PodInput, WorldError> {
  const namespace = pod.metadata?.namespace ?? "default";
  const name = pod.metadata?.name ?? "";
  const object = `pod ${namespace}/${name}`;
  const ip = pod.status?.podIP;
  if (!ip) return err({ object, path: "status.podIP", reason: "pod has no IP yet" });
  const node = pod.spec?.nodeName;
  if (!node) return err({ object, path: "spec.nodeName", reason: "pod is not scheduled" });
  const ports = (pod.spec?.containers ?? []).flatMap((c) =>
    (c.ports ?? []).map((p) => ({ ...(p.name ? { name: p.name } : {}), containerPort: p.containerPort, protocol: p.protocol ?? "TCP" })),
  );
  return ok({ namespace, name, labels: pod.metadata?.labels ?? {}, ip, node, ports });
}

/**
 * A node's addresses: InternalIP and ExternalIP from status.addresses, plus tunnel addresses the
 * CNI gives the node (tunl0, vxlan, cilium_host), which the Node object does not list.
 */
export function nodeInputFromK8s(node: Node, tunnelAddresses: readonly string[] = []): NodeInput {
  const ips = (node.status?.addresses ?? []).filter((a) => a.type === "InternalIP" || a.type === "ExternalIP").map((a) => a.address);
  return { name: node.metadata?.name ?? "", ips: [...ips, ...tunnelAddresses] };
}
