// One service port as kube-proxy sees it (proxy.BaseServicePortInfo): canonical addresses, the
// traffic policies, session affinity and the names of its chains. Services kube-proxy skips
// (no ClusterIP, headless, ExternalName) yield no ports.
import type { KubeObject } from "../k8s/index.js";
import { canonicalIPv4, formatCidr, parseCidrSloppy } from "./ip-text.js";
import { serviceChainNames, servicePortNameString, type ServiceChainNames } from "./iptables/chain-names.js";

export type L4Protocol = "tcp" | "udp" | "sctp";

export interface ServicePortInfo {
  readonly namespace: string;
  readonly serviceName: string;
  /** spec.ports[].name ("" for a single unnamed port). */
  readonly portName: string;
  /** "ns/name:port" (proxy.ServicePortName.String()). */
  readonly nameString: string;
  readonly protocol: L4Protocol;
  readonly clusterIP: string;
  readonly port: number;
  /** 0 when the port has none. */
  readonly nodePort: number;
  readonly externalIPs: readonly string[];
  readonly loadBalancerVIPs: readonly string[];
  /** Canonical CIDR text. */
  readonly loadBalancerSourceRanges: readonly string[];
  readonly sessionAffinityClientIP: boolean;
  readonly stickyMaxAgeSeconds: number;
  readonly internalPolicyLocal: boolean;
  readonly externalPolicyLocal: boolean;
  /** 0 unless the service is a LoadBalancer with externalTrafficPolicy Local. */
  readonly healthCheckNodePort: number;
  readonly chains: ServiceChainNames;
}

/** Key of a service port in the endpoints map: name string plus protocol (ServicePortName with Protocol). */
export function servicePortKey(nameString: string, protocol: L4Protocol): string {
  return `${nameString}|${protocol}`;
}

/** NodePort, LoadBalancer, or external IPs: reachable from outside through "external" destinations. */
export function externallyAccessible(p: ServicePortInfo): boolean {
  return p.nodePort !== 0 || p.loadBalancerVIPs.length > 0 || p.externalIPs.length > 0;
}

/** The port ever sends traffic to endpoints chosen by the Cluster policy. */
export function usesClusterEndpoints(p: ServicePortInfo): boolean {
  return !p.internalPolicyLocal || (externallyAccessible(p) && !p.externalPolicyLocal);
}

/** The port ever sends traffic to endpoints chosen by the Local policy. */
export function usesLocalEndpoints(p: ServicePortInfo): boolean {
  return p.internalPolicyLocal || (p.externalPolicyLocal && externallyAccessible(p));
}

const PROTOCOLS: Readonly<Record<string, L4Protocol>> = { TCP: "tcp", UDP: "udp", SCTP: "sctp" };

export interface ServicePortsResult {
  readonly ports: ServicePortInfo[];
  /** Values kube-proxy ignores, with the object path, e.g. `spec.externalIPs[0]: "x" is not an IPv4 address`. */
  readonly warnings: string[];
}

/** The proxied ports of a Service (IPv4 only), as ServiceChangeTracker builds them. */
export function servicePorts(svc: KubeObject<"Service">): ServicePortsResult {
  const spec = svc.spec ?? {};
  const namespace = svc.metadata.namespace ?? "default";
  const name = svc.metadata.name;
  const warnings: string[] = [];
  const where = `Service ${namespace}/${name}`;
  const type = spec.type ?? "ClusterIP";
  const rawIP = spec.clusterIP ?? spec.clusterIPs?.[0] ?? "";
  if (type === "ExternalName" || rawIP === "" || rawIP === "None") return { ports: [], warnings };
  const clusterIP = canonicalIPv4(rawIP);
  if (clusterIP === null) {
    warnings.push(`${where}: spec.clusterIP: ${JSON.stringify(rawIP)} is not an IPv4 address; service skipped`);
    return { ports: [], warnings };
  }
  const externalIPs: string[] = [];
  (spec.externalIPs ?? []).forEach((text, i) => {
    const v = canonicalIPv4(text);
    if (v === null) warnings.push(`${where}: spec.externalIPs[${i}]: ${JSON.stringify(text)} is not an IPv4 address`);
    else externalIPs.push(v);
  });
  const loadBalancerVIPs: string[] = [];
  if (type === "LoadBalancer") {
    for (const ing of svc.status?.loadBalancer?.ingress ?? []) {
      if (ing.ip === undefined || ing.ip === "" || ing.ipMode === "Proxy") continue;
      const v = canonicalIPv4(ing.ip);
      if (v !== null) loadBalancerVIPs.push(v);
    }
  }
  const loadBalancerSourceRanges: string[] = [];
  (spec.loadBalancerSourceRanges ?? []).forEach((text, i) => {
    const c = parseCidrSloppy(text.trim());
    if (c === null) warnings.push(`${where}: spec.loadBalancerSourceRanges[${i}]: ${JSON.stringify(text)} is not an IPv4 CIDR`);
    else loadBalancerSourceRanges.push(formatCidr(c));
  });
  const nodePortType = type === "NodePort" || type === "LoadBalancer";
  // apiservice.ExternallyAccessible: NodePort, LoadBalancer, or a ClusterIP service with external IPs.
  const externalReach = nodePortType || (type === "ClusterIP" && (spec.externalIPs ?? []).length > 0);
  const externalPolicyLocal = externalReach && spec.externalTrafficPolicy === "Local";
  const internalPolicyLocal = spec.internalTrafficPolicy === "Local";
  const affinity = spec.sessionAffinity === "ClientIP";
  const sticky = affinity ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? 10800) : 0;
  const healthCheckNodePort = type === "LoadBalancer" && spec.externalTrafficPolicy === "Local" ? (spec.healthCheckNodePort ?? 0) : 0;
  const ports: ServicePortInfo[] = [];
  (spec.ports ?? []).forEach((p, i) => {
    const protocol = PROTOCOLS[p.protocol ?? "TCP"];
    if (protocol === undefined) {
      warnings.push(`${where}: spec.ports[${i}].protocol: ${JSON.stringify(p.protocol)} is not TCP, UDP or SCTP`);
      return;
    }
    const portName = p.name ?? "";
    const nameString = servicePortNameString(namespace, name, portName);
    ports.push({
      namespace,
      serviceName: name,
      portName,
      nameString,
      protocol,
      clusterIP,
      port: p.port,
      nodePort: p.nodePort ?? 0,
      externalIPs,
      loadBalancerVIPs,
      loadBalancerSourceRanges,
      sessionAffinityClientIP: affinity,
      stickyMaxAgeSeconds: sticky,
      internalPolicyLocal,
      externalPolicyLocal,
      healthCheckNodePort,
      chains: serviceChainNames(nameString, protocol),
    });
  });
  return { ports, warnings };
}
