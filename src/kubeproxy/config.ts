// kube-proxy settings that change the iptables ruleset (KubeProxyConfiguration's iptables mode,
// plus the values a test harness sets on the fake proxier), with kube-proxy's defaults.
import { err, ok, type Result } from "../util/result.js";
import { cidrContains, formatCidr, parseCidrSloppy, parseIPv4Sloppy, type Cidr } from "./ip-text.js";

export interface ProxierConfigInput {
  /** This node's name (endpoints with this nodeName are local). */
  readonly nodeName: string;
  /** The node's primary IP (LoadBalancer source ranges containing it also admit the VIP as source). */
  readonly nodeIP?: string;
  /** --cluster-cidr: the local-traffic detector; unset = no detector (off-cluster ClusterIP traffic is not masqueraded). */
  readonly clusterCIDR?: string;
  /** --masquerade-all (default false). */
  readonly masqueradeAll?: boolean;
  /** --iptables-masquerade-bit (default 14, mark 0x00004000). */
  readonly masqueradeBit?: number;
  /** The mark text to write instead of the one derived from the bit (upstream's fake proxier uses "0x4000"). */
  readonly masqueradeMark?: string;
  /**
   * --iptables-localhost-nodeports. Upstream defaults to true and sets net.ipv4.conf.all.route_localnet=1;
   * cnisim's stack has no route_localnet, so the default here is false (rules then exclude 127.0.0.0/8).
   */
  readonly localhostNodePorts?: boolean;
  /** iptables supports MASQUERADE --random-fully (true for any iptables >= 1.6.2). */
  readonly randomFully?: boolean;
  /** --nodeport-addresses CIDRs; unset or empty = every local address. */
  readonly nodePortAddresses?: readonly string[];
  /** net.netfilter.nf_conntrack_tcp_be_liberal is set: no INVALID drop rule. */
  readonly conntrackTCPLiberal?: boolean;
  /** nfacct counters that exist (kube-proxy adds -m nfacct matches for them; the netfilter model has no nfacct match). */
  readonly nfacct?: { readonly ctStateInvalid?: boolean; readonly localhostNodePorts?: boolean };
}

export interface ProxierConfig {
  readonly nodeName: string;
  readonly nodeIP: number | null;
  readonly clusterCIDR: string | null;
  readonly masqueradeAll: boolean;
  readonly masqueradeMark: string;
  readonly localhostNodePorts: boolean;
  readonly randomFully: boolean;
  /** Null = match all local addresses. */
  readonly nodePortAddresses: readonly Cidr[] | null;
  readonly conntrackTCPLiberal: boolean;
  readonly nfacctCtStateInvalid: boolean;
  readonly nfacctLocalhostNodePorts: boolean;
}

/** Go's fmt "%#08x": "0x" and eight zero-padded hex digits. */
function goHexMark(value: number): string {
  return `0x${value.toString(16).padStart(8, "0")}`;
}

/** Validates and fills defaults; errors name the field. */
export function proxierConfig(input: ProxierConfigInput): Result<ProxierConfig, string> {
  if (input.nodeName === "") return err("kube-proxy config: nodeName: must not be empty");
  let nodeIP: number | null = null;
  if (input.nodeIP !== undefined) {
    nodeIP = parseIPv4Sloppy(input.nodeIP);
    if (nodeIP === null) return err(`kube-proxy config: nodeIP: ${JSON.stringify(input.nodeIP)} is not an IPv4 address`);
  }
  let clusterCIDR: string | null = null;
  if (input.clusterCIDR !== undefined && input.clusterCIDR !== "") {
    const c = parseCidrSloppy(input.clusterCIDR);
    if (c === null) return err(`kube-proxy config: clusterCIDR: ${JSON.stringify(input.clusterCIDR)} is not an IPv4 CIDR`);
    clusterCIDR = formatCidr(c);
  }
  const bit = input.masqueradeBit ?? 14;
  if (!Number.isInteger(bit) || bit < 0 || bit > 31) return err(`kube-proxy config: masqueradeBit: ${bit} not in 0..31`);
  let nodePortAddresses: Cidr[] | null = null;
  let hasLoopback = true;
  const v4 = (input.nodePortAddresses ?? []).filter((text) => !text.includes(":"));
  if (v4.length > 0) {
    const cidrs: Cidr[] = [];
    for (const [i, text] of v4.entries()) {
      const c = parseCidrSloppy(text);
      if (c === null) return err(`kube-proxy config: nodePortAddresses[${i}]: ${JSON.stringify(text)} is not a CIDR`);
      cidrs.push(c);
    }
    // A 0.0.0.0/0 entry means every address, as upstream's NodePortAddresses.MatchAll.
    if (!cidrs.some((c) => c.prefixLength === 0)) {
      nodePortAddresses = cidrs;
      hasLoopback = cidrs.some((c) => (c.address >>> 24) === 127 || cidrContains(c, 0x7f000001));
    }
  }
  const localhost = input.localhostNodePorts ?? false;
  return ok({
    nodeName: input.nodeName,
    nodeIP,
    clusterCIDR,
    masqueradeAll: input.masqueradeAll ?? false,
    masqueradeMark: input.masqueradeMark ?? goHexMark((1 << bit) >>> 0),
    localhostNodePorts: localhost && hasLoopback,
    randomFully: input.randomFully ?? true,
    nodePortAddresses,
    conntrackTCPLiberal: input.conntrackTCPLiberal ?? false,
    nfacctCtStateInvalid: input.nfacct?.ctStateInvalid ?? false,
    nfacctLocalhostNodePorts: input.nfacct?.localhostNodePorts ?? false,
  });
}
