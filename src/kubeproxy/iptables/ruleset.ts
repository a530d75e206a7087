// The iptables-restore input kube-proxy's iptables proxier writes on a full sync (syncProxyRules in
// pkg/proxy/iptables/proxier.go): filter and nat tables, per-service chains, the probability
// cascade, session affinity, traffic policies, masquerade marks and stale-chain deletion.
// Services are visited in name order (upstream walks a Go map; its tests sort the output).
import { formatIPv4 } from "../../util/ip.js";
import { categorizeEndpoints } from "../categorize.js";
import type { ProxierConfig } from "../config.js";
import type { EndpointInfo, EndpointsMap } from "../endpoint-info.js";
import { cidrContains, parseCidrSloppy } from "../ip-text.js";
import { externallyAccessible, servicePortKey, type ServicePortInfo } from "../service-port.js";
import { endpointChainName, isServiceChainName, KubeChain } from "./chain-names.js";
import { LineBuffer } from "./line-buffer.js";
import { probability } from "./probability.js";

/** Above this many endpoints kube-proxy drops per-rule comments (largeClusterEndpointsThreshold). */
export const LARGE_CLUSTER_ENDPOINTS = 1000;

export interface RulesetInput {
  readonly services: readonly ServicePortInfo[];
  readonly endpoints: EndpointsMap;
  /** Chains the nat table has now (stale KUBE-SVC/SEP/... ones get "-X"). */
  readonly existingNatChains: ReadonlySet<string>;
  /** The node's addresses, for --nodeport-addresses filtering (unused when it matches all). */
  readonly nodeAddresses?: readonly number[];
}

export interface Ruleset {
  /** iptables-restore input (*filter then *nat), to be loaded with --noflush. */
  readonly text: string;
  readonly filterRules: number;
  readonly natRules: number;
  readonly natChains: number;
  readonly deletedChains: number;
  readonly largeClusterMode: boolean;
  /** Service ports whose Local internal / external policy found no local endpoint (sync_proxy_rules_no_local_endpoints_total). */
  readonly noLocalEndpointsInternal: number;
  readonly noLocalEndpointsExternal: number;
}

const q = (text: string): string => `"${text}"`;

function byKey(a: ServicePortInfo, b: ServicePortInfo): number {
  const ka = servicePortKey(a.nameString, a.protocol);
  const kb = servicePortKey(b.nameString, b.protocol);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

export function buildRuleset(config: ProxierConfig, input: RulesetInput): Ruleset {
  const filterChains = new LineBuffer();
  const filterRules = new LineBuffer();
  const natChains = new LineBuffer();
  const natRules = new LineBuffer();
  const mark = config.masqueradeMark;
  const ifLocal = config.clusterCIDR === null ? null : ["-s", config.clusterCIDR];
  const ifNotLocal = config.clusterCIDR === null ? null : ["!", "-s", config.clusterCIDR];

  for (const c of [KubeChain.SERVICES, KubeChain.EXTERNAL_SERVICES, KubeChain.FORWARD, KubeChain.NODEPORTS, KubeChain.PROXY_FIREWALL]) filterChains.writeChain(c);
  for (const c of [KubeChain.SERVICES, KubeChain.NODEPORTS, KubeChain.POSTROUTING, KubeChain.MARK_MASQ]) natChains.writeChain(c);

  natRules.write("-A", KubeChain.POSTROUTING, "-m", "mark", "!", "--mark", `${mark}/${mark}`, "-j", "RETURN");
  // Clear the mark so a packet that re-traverses the stack is not masqueraded again.
  natRules.write("-A", KubeChain.POSTROUTING, "-j", "MARK", "--xor-mark", mark);
  natRules.write("-A", KubeChain.POSTROUTING, "-m", "comment", "--comment", q("kubernetes service traffic requiring SNAT"), "-j", "MASQUERADE", config.randomFully ? ["--random-fully"] : []);
  natRules.write("-A", KubeChain.MARK_MASQ, "-j", "MARK", "--or-mark", mark);

  if (config.localhostNodePorts) {
    // route_localnet makes 127.0.0.0/8 routable; this rule keeps martian packets out (issue 90259).
    filterChains.writeChain(KubeChain.FIREWALL);
    filterRules.write("-A", KubeChain.FIREWALL, "-m", "comment", "--comment", q("block incoming localnet connections"), "-d", "127.0.0.0/8", "!", "-s", "127.0.0.0/8", "-m", "conntrack", "!", "--ctstate", "RELATED,ESTABLISHED,DNAT", "-j", "DROP");
  }

  const services = [...input.services].sort(byKey);
  const endpointsOf = (svc: ServicePortInfo): readonly EndpointInfo[] => input.endpoints.get(servicePortKey(svc.nameString, svc.protocol)) ?? [];
  let totalEndpoints = 0;
  for (const svc of services) totalEndpoints += endpointsOf(svc).length;
  const largeClusterMode = totalEndpoints > LARGE_CLUSTER_ENDPOINTS;
  const comment = (text: string): string[] => (largeClusterMode ? [] : ["-m", "comment", "--comment", text]);

  const activeNatChains = new Set<string>();
  let noLocalInternal = 0;
  let noLocalExternal = 0;

  for (const svc of services) {
    const protocol = svc.protocol;
    const name = svc.nameString;
    const cat = categorizeEndpoints(endpointsOf(svc), svc);
    const clusterPolicyChain = svc.chains.cluster;
    const usesClusterPolicyChain = cat.cluster.length > 0;
    const localPolicyChain = svc.chains.local;
    const usesLocalPolicyChain = cat.local.length > 0;

    const hasEndpoints = cat.hasAny;
    let internalTrafficChain = clusterPolicyChain;
    let hasInternalEndpoints = hasEndpoints;
    if (svc.internalPolicyLocal) {
      internalTrafficChain = localPolicyChain;
      if (cat.local.length === 0) hasInternalEndpoints = false;
    }
    let externalPolicyChain = clusterPolicyChain;
    let hasExternalEndpoints = hasEndpoints;
    if (svc.externalPolicyLocal) {
      externalPolicyChain = localPolicyChain;
      if (cat.local.length === 0) hasExternalEndpoints = false;
    }
    const externalTrafficChain = svc.chains.external;
    // Needed even without external endpoints, for the local-traffic short circuit.
    const usesExternalTrafficChain = hasEndpoints && externallyAccessible(svc);
    const fwChain = svc.chains.firewall;
    const usesFWChain = hasEndpoints && svc.loadBalancerVIPs.length > 0 && svc.loadBalancerSourceRanges.length > 0;
    const loadBalancerTrafficChain = usesFWChain ? fwChain : externalTrafficChain;

    let internalFilterTarget = "";
    let internalFilterComment = "";
    let externalFilterTarget = "";
    let externalFilterComment = "";
    if (!hasEndpoints) {
      internalFilterTarget = "REJECT";
      internalFilterComment = q(`${name} has no endpoints`);
      externalFilterTarget = "REJECT";
      externalFilterComment = internalFilterComment;
    } else {
      if (!hasInternalEndpoints) {
        internalFilterTarget = "DROP";
        internalFilterComment = q(`${name} has no local endpoints`);
        noLocalInternal++;
      }
      if (!hasExternalEndpoints) {
        externalFilterTarget = "DROP";
        externalFilterComment = q(`${name} has no local endpoints`);
        noLocalExternal++;
      }
    }
    const port = String(svc.port);
    const l4 = ["-m", protocol, "-p", protocol];

    // The ClusterIP.
    if (hasInternalEndpoints) {
      natRules.write("-A", KubeChain.SERVICES, "-m", "comment", "--comment", q(`${name} cluster IP`), l4, "-d", svc.clusterIP, "--dport", port, "-j", internalTrafficChain);
    } else {
      filterRules.write("-A", KubeChain.SERVICES, "-m", "comment", "--comment", internalFilterComment, l4, "-d", svc.clusterIP, "--dport", port, "-j", internalFilterTarget);
    }
    // External IPs.
    for (const ip of svc.externalIPs) {
      if (hasEndpoints) natRules.write("-A", KubeChain.SERVICES, "-m", "comment", "--comment", q(`${name} external IP`), l4, "-d", ip, "--dport", port, "-j", externalTrafficChain);
      if (!hasExternalEndpoints) filterRules.write("-A", KubeChain.EXTERNAL_SERVICES, "-m", "comment", "--comment", externalFilterComment, l4, "-d", ip, "--dport", port, "-j", externalFilterTarget);
    }
    // LoadBalancer ingress IPs.
    for (const ip of svc.loadBalancerVIPs) {
      if (hasEndpoints) natRules.write("-A", KubeChain.SERVICES, "-m", "comment", "--comment", q(`${name} loadbalancer IP`), l4, "-d", ip, "--dport", port, "-j", loadBalancerTrafficChain);
      if (usesFWChain) filterRules.write("-A", KubeChain.PROXY_FIREWALL, "-m", "comment", "--comment", q(`${name} traffic not accepted by ${fwChain}`), l4, "-d", ip, "--dport", port, "-j", "DROP");
    }
    if (!hasExternalEndpoints) {
      for (const ip of svc.loadBalancerVIPs) filterRules.write("-A", KubeChain.EXTERNAL_SERVICES, "-m", "comment", "--comment", externalFilterComment, l4, "-d", ip, "--dport", port, "-j", externalFilterTarget);
    }
    // The NodePort (loadBalancerSourceRanges do not apply to it).
    if (svc.nodePort !== 0) {
      const nodePort = String(svc.nodePort);
      if (hasEndpoints) {
        if (config.localhostNodePorts && config.nfacctLocalhostNodePorts) {
          natRules.write("-A", KubeChain.NODEPORTS, "-m", "comment", "--comment", name, l4, "-d", "127.0.0.0/8", "--dport", nodePort, "-m", "nfacct", "--nfacct-name", "localhost_nps_accepted_pkts", "-j", externalTrafficChain);
        }
        natRules.write("-A", KubeChain.NODEPORTS, "-m", "comment", "--comment", name, l4, "--dport", nodePort, "-j", externalTrafficChain);
      }
      if (!hasExternalEndpoints) {
        filterRules.write("-A", KubeChain.EXTERNAL_SERVICES, "-m", "comment", "--comment", externalFilterComment, "-m", "addrtype", "--dst-type", "LOCAL", l4, "--dport", nodePort, "-j", externalFilterTarget);
      }
    }
    // The health check NodePort is accepted whether or not there are local endpoints.
    if (svc.healthCheckNodePort !== 0) {
      filterRules.write("-A", KubeChain.NODEPORTS, "-m", "comment", "--comment", q(`${name} health check node port`), "-m", "tcp", "-p", "tcp", "--dport", String(svc.healthCheckNodePort), "-j", "ACCEPT");
    }

    // Internal traffic: masquerade off-cluster sources (or everything with --masquerade-all).
    if (hasInternalEndpoints) {
      const args = ["-m", "comment", "--comment", q(`${name} cluster IP`), ...l4, "-d", svc.clusterIP, "--dport", port];
      if (config.masqueradeAll) natRules.write("-A", internalTrafficChain, args, "-j", KubeChain.MARK_MASQ);
      else if (ifNotLocal !== null) natRules.write("-A", internalTrafficChain, args, ifNotLocal, "-j", KubeChain.MARK_MASQ);
    }

    // External traffic: every external destination jumps to the EXT chain.
    if (usesExternalTrafficChain) {
      natChains.writeChain(externalTrafficChain);
      activeNatChains.add(externalTrafficChain);
      if (!svc.externalPolicyLocal) {
        // Endpoints may be on other nodes: masquerade so replies come back through this node.
        natRules.write("-A", externalTrafficChain, "-m", "comment", "--comment", q(`masquerade traffic for ${name} external destinations`), "-j", KubeChain.MARK_MASQ);
      } else {
        // Pods reaching an external destination act as if they went out and came back in: all endpoints, no masquerade.
        if (ifLocal !== null) natRules.write("-A", externalTrafficChain, "-m", "comment", "--comment", q(`pod traffic for ${name} external destinations`), ifLocal, "-j", clusterPolicyChain);
        // The node itself picks a local address as source; masquerade it and use all endpoints.
        natRules.write("-A", externalTrafficChain, "-m", "comment", "--comment", q(`masquerade LOCAL traffic for ${name} external destinations`), "-m", "addrtype", "--src-type", "LOCAL", "-j", KubeChain.MARK_MASQ);
        natRules.write("-A", externalTrafficChain, "-m", "comment", "--comment", q(`route LOCAL traffic for ${name} external destinations`), "-m", "addrtype", "--src-type", "LOCAL", "-j", clusterPolicyChain);
      }
      if (hasExternalEndpoints) natRules.write("-A", externalTrafficChain, "-j", externalPolicyChain);
    }

    // loadBalancerSourceRanges.
    if (usesFWChain) {
      natChains.writeChain(fwChain);
      activeNatChains.add(fwChain);
      const args = ["-A", fwChain, "-m", "comment", "--comment", q(`${name} loadbalancer IP`)];
      let allowFromNode = false;
      for (const text of svc.loadBalancerSourceRanges) {
        natRules.write(args, "-s", text, "-j", externalTrafficChain);
        const c = parseCidrSloppy(text);
        if (c !== null && config.nodeIP !== null && cidrContains(c, config.nodeIP)) allowFromNode = true;
      }
      // A node reaching its own VIP loops back with the VIP as source.
      if (allowFromNode) for (const ip of svc.loadBalancerVIPs) natRules.write(args, "-s", ip, "-j", externalTrafficChain);
      natRules.write("-A", fwChain, "-m", "comment", "--comment", q(`other traffic to ${name} will be dropped by KUBE-PROXY-FIREWALL`));
    }

    if (usesClusterPolicyChain) {
      natChains.writeChain(clusterPolicyChain);
      activeNatChains.add(clusterPolicyChain);
      writeServiceToEndpointRules(natRules, svc, clusterPolicyChain, cat.cluster, largeClusterMode);
    }
    if (usesLocalPolicyChain) {
      natChains.writeChain(localPolicyChain);
      activeNatChains.add(localPolicyChain);
      writeServiceToEndpointRules(natRules, svc, localPolicyChain, cat.local, largeClusterMode);
    }

    // One chain per endpoint: hairpin masquerade, affinity bookkeeping, DNAT.
    for (const ep of cat.reachable) {
      const chain = endpointChainName(name, protocol, ep.endpoint);
      natChains.writeChain(chain);
      activeNatChains.add(chain);
      const args = ["-A", chain, ...comment(name)];
      natRules.write(args, "-s", ep.ip, "-j", KubeChain.MARK_MASQ);
      const affinity = svc.sessionAffinityClientIP ? ["-m", "recent", "--name", chain, "--set"] : [];
      natRules.write(args, affinity, l4, "-j", "DNAT", "--to-destination", ep.endpoint);
    }
  }

  // Stale service chains: flush (chain line) and delete.
  let deletedChains = 0;
  for (const chain of [...input.existingNatChains].sort()) {
    if (activeNatChains.has(chain) || !isServiceChainName(chain)) continue;
    natChains.writeChain(chain);
    natRules.write("-X", chain);
    deletedChains++;
  }

  // The NodePort dispatch must stay the last rule of KUBE-SERVICES.
  const lastRule = q("kubernetes service nodeports; NOTE: this must be the last rule in this chain");
  if (config.nodePortAddresses === null) {
    natRules.write("-A", KubeChain.SERVICES, "-m", "comment", "--comment", lastRule, "-m", "addrtype", "--dst-type", "LOCAL", config.localhostNodePorts ? [] : ["!", "-d", "127.0.0.0/8"], "-j", KubeChain.NODEPORTS);
  } else {
    for (const addr of input.nodeAddresses ?? []) {
      if (!config.nodePortAddresses.some((c) => cidrContains(c, addr))) continue;
      if (addr >>> 24 === 127 && !config.localhostNodePorts) continue;
      natRules.write("-A", KubeChain.SERVICES, "-m", "comment", "--comment", lastRule, "-d", formatIPv4(addr), "-j", KubeChain.NODEPORTS);
    }
  }

  if (!config.conntrackTCPLiberal) {
    const nfacct = config.nfacctCtStateInvalid ? ["-m", "nfacct", "--nfacct-name", "ct_state_invalid_dropped_pkts"] : [];
    filterRules.write("-A", KubeChain.FORWARD, "-m", "conntrack", "--ctstate", "INVALID", nfacct, "-j", "DROP");
  }
  // Forward what kube-proxy marked, and the rest of those connections, even if FORWARD's policy is DROP.
  filterRules.write("-A", KubeChain.FORWARD, "-m", "comment", "--comment", q("kubernetes forwarding rules"), "-m", "mark", "--mark", `${mark}/${mark}`, "-j", "ACCEPT");
  filterRules.write("-A", KubeChain.FORWARD, "-m", "comment", "--comment", q("kubernetes forwarding conntrack rule"), "-m", "conntrack", "--ctstate", "RELATED,ESTABLISHED", "-j", "ACCEPT");

  const text = `*filter\n${filterChains.text()}${filterRules.text()}COMMIT\n*nat\n${natChains.text()}${natRules.text()}COMMIT\n`;
  return {
    text,
    filterRules: filterRules.count,
    natRules: natRules.count - deletedChains,
    natChains: natChains.count,
    deletedChains,
    largeClusterMode,
    noLocalEndpointsInternal: noLocalInternal,
    noLocalEndpointsExternal: noLocalExternal,
  };
}

/** The session-affinity checks, then the probability cascade over `endpoints` (1/n, 1/(n-1), ..., last always). */
function writeServiceToEndpointRules(natRules: LineBuffer, svc: ServicePortInfo, chain: string, endpoints: readonly EndpointInfo[], large: boolean): void {
  const name = svc.nameString;
  const comment = (ep: EndpointInfo): string[] => (large ? [] : ["-m", "comment", "--comment", q(`${name} -> ${ep.endpoint}`)]);
  if (svc.sessionAffinityClientIP) {
    for (const ep of endpoints) {
      const sep = endpointChainName(name, svc.protocol, ep.endpoint);
      natRules.write("-A", chain, comment(ep), "-m", "recent", "--name", sep, "--rcheck", "--seconds", String(svc.stickyMaxAgeSeconds), "--reap", "-j", sep);
    }
  }
  const n = endpoints.length;
  endpoints.forEach((ep, i) => {
    const sep = endpointChainName(name, svc.protocol, ep.endpoint);
    const stat = i < n - 1 ? ["-m", "statistic", "--mode", "random", "--probability", probability(n - i)] : [];
    natRules.write("-A", chain, comment(ep), stat, "-j", sep);
  });
}
