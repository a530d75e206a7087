// Rules of the Cluster object: underlay subnet and gateway, unique node and host addresses,
// CNI plugin/mode/dataplane combinations, pod and service ranges that fit and do not overlap.
import { formatIPv4, parseIPv4 } from "../../util/ip.js";
import {
  BLOCK_SIZE_RANGE,
  CLUSTER_DEFAULTS,
  DEFAULT_BLOCK_SIZE,
  DEFAULT_POD_CIDR,
  ENCAP_OVERHEAD,
  MIN_SERVICE_PREFIX,
  parsePortRange,
} from "../cluster-defaults.js";
import { CNI_MODES, type Cluster } from "../cluster-types.js";
import { broadcastOf, parseIpv4Network, prefixContains, prefixesOverlap, type Ipv4Prefix } from "../addresses.js";
import { parseBandwidth, parseDuration, parseQueueBytes } from "../netunits.js";
import { isNegativeQuantity, parseQuantity } from "../quantity.js";
import { checkDuplicates, p, type CheckContext } from "./context.js";

function network(text: string | undefined, path: string, ctx: CheckContext): Ipv4Prefix | null {
  if (text === undefined) return null;
  const r = parseIpv4Network(text);
  if ("error" in r) {
    ctx.error(path, r.error);
    return null;
  }
  return r.prefix;
}

export function checkCluster(c: Cluster, ctx: CheckContext): void {
  const spec = c.spec;
  if (spec === undefined) return;
  const subnet = network(spec.underlay?.subnet, "spec.underlay.subnet", ctx);
  const used = new Map<number, string>();
  const claim = (ipText: string | undefined, path: string, what: string, mustBeInSubnet: boolean): void => {
    if (ipText === undefined) return;
    const ip = parseIPv4(ipText);
    if (ip === null) {
      ctx.error(path, `invalid value ${JSON.stringify(ipText)}: must be an IPv4 address`);
      return;
    }
    if (subnet !== null) {
      const inside = prefixContains(subnet, ip);
      const net = `${spec.underlay.subnet}`;
      if (mustBeInSubnet && !inside) ctx.error(path, `invalid value ${JSON.stringify(ipText)}: must be inside the underlay subnet ${net}`);
      else if (inside && subnet.prefixLength < 31 && (ip === subnet.address || ip === broadcastOf(subnet))) {
        ctx.error(path, `invalid value ${JSON.stringify(ipText)}: must not be the network or broadcast address of ${net}`);
      }
    }
    const prior = used.get(ip);
    if (prior !== undefined) ctx.error(path, `duplicate value ${JSON.stringify(ipText)}: already used by ${prior}`);
    else used.set(ip, what);
  };
  const gateway = spec.underlay?.gateway ?? (subnet === null ? undefined : formatIPv4((subnet.address + 1) >>> 0));
  claim(gateway, "spec.underlay.gateway", spec.underlay?.gateway === undefined ? "the default underlay gateway" : "the underlay gateway", true);
  checkLink(c, ctx);

  const nodes = spec.nodes ?? [];
  if (spec.nodes !== undefined && nodes.length === 0) ctx.error("spec.nodes", "must have at least one node");
  checkDuplicates(nodes, (n) => n.name, (i) => p.field(p.index("spec.nodes", i), "name"), ctx);
  nodes.forEach((n, i) => {
    const np = p.index("spec.nodes", i);
    claim(n.ip, p.field(np, "ip"), `node ${n.name}`, true);
    checkDuplicates(
      n.taints,
      (t) => `${t.key}:${t.effect}`,
      (j) => p.index(p.field(np, "taints"), j),
      ctx,
      (k) => `duplicate value ${JSON.stringify(k)}: taints must be unique by key and effect pair`,
    );
    for (const [name, text] of Object.entries(n.allocatable ?? {})) {
      const q = parseQuantity(text);
      if (q.ok && isNegativeQuantity(q.value)) ctx.error(p.key(p.field(np, "allocatable"), name), `invalid value ${JSON.stringify(text)}: must be greater than or equal to 0`);
    }
  });
  const hosts = spec.externalHosts ?? [];
  const nodeNames = new Set(nodes.map((n) => n.name));
  hosts.forEach((h, i) => {
    const hp = p.index("spec.externalHosts", i);
    if (nodeNames.has(h.name)) ctx.error(p.field(hp, "name"), `duplicate value ${JSON.stringify(h.name)}: already the name of a node`);
    claim(h.ip, p.field(hp, "ip"), `external host ${h.name}`, false);
  });
  checkDuplicates(hosts, (h) => h.name, (i) => p.field(p.index("spec.externalHosts", i), "name"), ctx);
  checkCni(c, subnet, nodes.length, ctx);
}

function checkLink(c: Cluster, ctx: CheckContext): void {
  const link = c.spec.underlay?.link;
  if (link?.bandwidth !== undefined) {
    const r = parseBandwidth(link.bandwidth);
    if (!r.ok) ctx.error("spec.underlay.link.bandwidth", r.error);
  }
  if (link?.latency !== undefined) {
    const r = parseDuration(link.latency);
    if (!r.ok) ctx.error("spec.underlay.link.latency", r.error);
  }
  if (link?.queue !== undefined) {
    const r = parseQueueBytes(link.queue, link.mtu ?? CLUSTER_DEFAULTS.mtu);
    if (!r.ok) ctx.error("spec.underlay.link.queue", r.error);
  }
}

function checkCni(c: Cluster, subnet: Ipv4Prefix | null, nodeCount: number, ctx: CheckContext): void {
  const spec = c.spec;
  const cni = spec.cni;
  if (cni?.plugin === undefined) return;
  const plugin = cni.plugin;
  const modes = CNI_MODES[plugin];
  if (cni.mode !== undefined) {
    if (modes.length === 0) ctx.error("spec.cni.mode", `must not be set for plugin ${plugin}`);
    else if (!modes.includes(cni.mode)) ctx.error("spec.cni.mode", `must be one of ${modes.join(", ")}`);
  }
  if (cni.dataplane === "ebpf" && plugin !== "calico") ctx.error("spec.cni.dataplane", "ebpf is only available with plugin calico");
  if (plugin === "bridge" && nodeCount > 1) ctx.error("spec.nodes", "the bridge plugin models a single docker0-style host: give exactly one node");

  let podPrefix: Ipv4Prefix | null;
  if (cni.podCIDR !== undefined) podPrefix = network(cni.podCIDR, "spec.cni.podCIDR", ctx);
  else {
    const fallback = DEFAULT_POD_CIDR[plugin];
    const parsed = fallback === null ? null : parseIpv4Network(fallback);
    podPrefix = parsed === null ? subnet : "prefix" in parsed ? parsed.prefix : null;
  }
  if (podPrefix !== null && subnet !== null) {
    if (plugin === "macvlan") {
      if (!prefixContains(subnet, podPrefix.address) || podPrefix.prefixLength < subnet.prefixLength) {
        ctx.error("spec.cni.podCIDR", "must be inside the underlay subnet: macvlan pods live on the underlay");
      }
    } else if (prefixesOverlap(podPrefix, subnet)) ctx.error("spec.cni.podCIDR", "must not overlap the underlay subnet");
  }
  checkBlocks(c, podPrefix, nodeCount, ctx);

  const services = network(spec.serviceCIDR, "spec.serviceCIDR", ctx);
  if (services !== null) {
    if (services.prefixLength < MIN_SERVICE_PREFIX) {
      ctx.error("spec.serviceCIDR", `must be /${MIN_SERVICE_PREFIX} or smaller (kube-apiserver refuses larger service ranges)`);
    }
    if (subnet !== null && prefixesOverlap(services, subnet)) ctx.error("spec.serviceCIDR", "must not overlap the underlay subnet");
    if (podPrefix !== null && prefixesOverlap(services, podPrefix)) ctx.error("spec.serviceCIDR", "must not overlap the pod CIDR");
  }
  const kp = spec.kubeProxy;
  if (kp?.mode !== undefined && kp.mode !== "iptables") {
    ctx.error("spec.kubeProxy.mode", "must be one of iptables (the ipvs and nftables modes are not modelled)");
  }
  network(kp?.clusterCIDR, "spec.kubeProxy.clusterCIDR", ctx);
  if (kp?.nodePortRange !== undefined && parsePortRange(kp.nodePortRange) === null) {
    ctx.error("spec.kubeProxy.nodePortRange", `invalid value ${JSON.stringify(kp.nodePortRange)}: must be a port range such as 30000-32767 within 1-65535`);
  }
  if (cni.mtu !== undefined) {
    const linkMtu = spec.underlay?.link?.mtu ?? CLUSTER_DEFAULTS.mtu;
    const overhead = ENCAP_OVERHEAD[cni.mode ?? modes[0] ?? ""] ?? 0;
    if (cni.mtu > linkMtu - overhead) {
      ctx.warn("spec.cni.mtu", `larger than the link MTU minus encapsulation (${linkMtu - overhead}): large packets will need fragmentation`);
    }
  }
}

function checkBlocks(c: Cluster, pods: Ipv4Prefix | null, nodeCount: number, ctx: CheckContext): void {
  const plugin = c.spec.cni.plugin;
  const given = c.spec.cni.blockSize;
  const range = BLOCK_SIZE_RANGE[plugin];
  if (given !== undefined && range === null) {
    ctx.error("spec.cni.blockSize", `must not be set for plugin ${plugin} (it has no per-node blocks)`);
    return;
  }
  if (range === null || pods === null) return;
  const block = given ?? DEFAULT_BLOCK_SIZE[plugin]!;
  if (block < range[0] || block > range[1]) {
    ctx.error("spec.cni.blockSize", `must be between ${range[0]} and ${range[1]}, inclusive`);
    return;
  }
  if (block < pods.prefixLength) {
    ctx.error("spec.cni.blockSize", `must not be shorter than the pod CIDR's prefix /${pods.prefixLength}`);
    return;
  }
  const blocks = 2 ** (block - pods.prefixLength);
  if (blocks < nodeCount) {
    ctx.error("spec.cni.blockSize", `the pod CIDR /${pods.prefixLength} has room for ${blocks} block(s) of /${block}, fewer than the ${nodeCount} nodes`);
  }
}
