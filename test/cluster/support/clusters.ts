// Small clusters for the CNI conformance suite and the cluster tests: a Cluster file for a plugin and
// mode, two workers on one /24 segment plus an outside client, and pods placed with nodeName.
import { loadText, type LoadResult } from "../../../src/k8s/load.js";

export interface ClusterShape {
  readonly plugin: string;
  readonly mode?: string;
  readonly dataplane?: string;
  readonly podCIDR?: string;
  readonly seed?: number;
  /** Extra YAML documents (pods, policies). */
  readonly extra?: string;
  readonly nodes?: number;
}

const pod = (ns: string, name: string, node: string, labels: Record<string, string> = { app: name }): string => `
---
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: ${ns}, labels: ${JSON.stringify(labels)}}
spec:
  nodeName: ${node}
  containers: [{name: c, image: busybox}]`;

/** Nodes n1, n2 (10.9.0.11, .12), client 10.9.0.100; pods default/a and default/b on n1, default/c on n2. */
export function conformanceYaml(s: ClusterShape): string {
  const count = s.nodes ?? 2;
  const nodes = Array.from({ length: count }, (_, i) => `    - {name: n${i + 1}, ip: 10.9.0.${11 + i}}`).join("\n");
  const cni = [`plugin: ${s.plugin}`, s.mode ? `mode: ${s.mode}` : "", s.dataplane ? `dataplane: ${s.dataplane}` : "", s.podCIDR ? `podCIDR: ${s.podCIDR}` : ""].filter((x) => x !== "").join(", ");
  const pods = count === 1 ? pod("default", "a", "n1") + pod("default", "b", "n1") : pod("default", "a", "n1") + pod("default", "b", "n1") + pod("default", "c", "n2");
  return `apiVersion: cnisim.io/v1alpha1
kind: Cluster
metadata: {name: conformance}
spec:
  underlay: {subnet: 10.9.0.0/24, gateway: 10.9.0.1, link: {bandwidth: 10Gbps, latency: 20us, mtu: 1500}}
  nodes:
${nodes}
  externalHosts:
    - {name: client, ip: 10.9.0.100}
  cni: {${cni}}
  seed: ${s.seed ?? 7}
${pods}${s.extra ?? ""}
`;
}

export function loadShape(s: ClusterShape): LoadResult {
  return loadText(conformanceYaml(s), "conformance.yaml");
}
