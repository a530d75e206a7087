// Builders mirroring upstream proxier_test.go's makeTestService / makeTestEndpointSlice and
// NewFakeProxier (node "test-node" at 192.168.0.2, pod CIDR 10.0.0.0/8 as the local detector,
// mark 0x4000, localhost NodePorts on, no --random-fully, both nfacct counters present), and a
// reader for the golden files.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import type { KubeObject } from "../../src/k8s/index.js";
import { buildEndpointsMap, buildRuleset, proxierConfig, servicePorts, type ProxierConfigInput, type Ruleset } from "../../src/kubeproxy/index.js";
import { unwrap } from "../../src/util/result.js";

export type Service = KubeObject<"Service">;

export const TEST_NODE = "test-node";

export function makeService(namespace: string, name: string, mutate: (svc: Service) => void): Service {
  const svc: Service = { apiVersion: "v1", kind: "Service", metadata: { name, namespace, annotations: {} }, spec: {}, status: {} };
  mutate(svc);
  return svc;
}

export function makeSlice(namespace: string, service: string, n: number, mutate: (eps: EndpointSlice) => void): EndpointSlice {
  const eps: EndpointSlice = {
    addressType: "IPv4",
    endpoints: [],
    metadata: { name: `${service}-${n}`, namespace, labels: { "kubernetes.io/service-name": service } },
  };
  mutate(eps);
  return eps;
}

/** NewFakeProxier's settings. */
export const FAKE_PROXIER: ProxierConfigInput = {
  nodeName: TEST_NODE,
  nodeIP: "192.168.0.2",
  clusterCIDR: "10.0.0.0/8",
  masqueradeMark: "0x4000",
  localhostNodePorts: true,
  randomFully: false,
  nfacct: { ctStateInvalid: true, localhostNodePorts: true },
};

export function generate(services: readonly Service[], slices: readonly EndpointSlice[], config: Partial<ProxierConfigInput> = {}, existing: ReadonlySet<string> = new Set()): Ruleset {
  const cfg = unwrap(proxierConfig({ ...FAKE_PROXIER, ...config }));
  const ports = services.flatMap((s) => servicePorts(s).ports);
  return buildRuleset(cfg, { services: ports, endpoints: buildEndpointsMap(slices, cfg.nodeName), existingNatChains: existing });
}

/** A golden file from test/kubeproxy/golden without its '#' header. */
export function golden(name: string): string {
  const text = readFileSync(path.resolve(process.cwd(), "test/kubeproxy/golden", name), "utf8");
  return text
    .split("\n")
    .filter((l) => !l.startsWith("#"))
    .join("\n")
    .replace(/^\n+/, "");
}

/** Sets status.loadBalancer.ingress (kubernetes-types marks status read-only; the cloud controller writes it). */
export function setIngress(svc: Service, ips: readonly string[]): void {
  (svc as { status?: unknown }).status = { loadBalancer: { ingress: ips.map((ip) => ({ ip })) } };
}

export const tcpPort = (name: string, port: number): { name: string; port: number; protocol: "TCP" } => ({ name, port, protocol: "TCP" });
