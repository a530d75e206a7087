// Rules of a NetworkPolicy (after upstream's ValidateNetworkPolicy): peers, ipBlock except
// ranges, endPort, policyTypes. policyTypes is not defaulted here (the policy layer does it).
import type { IPBlock, NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from "kubernetes-types/networking/v1.js";
import { parseIPv4Cidr } from "../../util/ip.js";
import { prefixContains } from "../addresses.js";
import { checkDuplicates, p, type CheckContext } from "./context.js";
import { checkLabelSelector } from "./selectors.js";

export function checkNetworkPolicy(np: NetworkPolicy, ctx: CheckContext): void {
  const spec = np.spec;
  if (spec?.podSelector === undefined) {
    ctx.warn("spec.podSelector", "not given: an empty selector (every pod in the namespace) is used, as the API server does");
  }
  checkLabelSelector(spec?.podSelector, "spec.podSelector", ctx);
  const types = spec?.policyTypes ?? [];
  if (types.length > 2) ctx.error("spec.policyTypes", "may not specify more than two policyTypes");
  checkDuplicates(types, (t) => t, (i) => p.index("spec.policyTypes", i), ctx);
  (spec?.ingress ?? []).forEach((rule, i) => {
    const rp = p.index("spec.ingress", i);
    (rule.from ?? []).forEach((peer, j) => checkPeer(peer, p.index(p.field(rp, "from"), j), ctx));
    (rule.ports ?? []).forEach((port, j) => checkPort(port, p.index(p.field(rp, "ports"), j), ctx));
  });
  (spec?.egress ?? []).forEach((rule, i) => {
    const rp = p.index("spec.egress", i);
    (rule.to ?? []).forEach((peer, j) => checkPeer(peer, p.index(p.field(rp, "to"), j), ctx));
    (rule.ports ?? []).forEach((port, j) => checkPort(port, p.index(p.field(rp, "ports"), j), ctx));
  });
}

function checkPeer(peer: NetworkPolicyPeer, path: string, ctx: CheckContext): void {
  const selectors = (peer.podSelector !== undefined ? 1 : 0) + (peer.namespaceSelector !== undefined ? 1 : 0);
  if (peer.ipBlock !== undefined) {
    if (selectors > 0) ctx.error(path, "may not specify both ipBlock and another peer");
    checkIpBlock(peer.ipBlock, p.field(path, "ipBlock"), ctx);
  } else if (selectors === 0 && !ctx.hasErrorsUnder(path)) ctx.error(path, "must specify a peer");
  checkLabelSelector(peer.podSelector, p.field(path, "podSelector"), ctx);
  checkLabelSelector(peer.namespaceSelector, p.field(path, "namespaceSelector"), ctx);
}

function checkIpBlock(block: IPBlock, path: string, ctx: CheckContext): void {
  const outer = block.cidr === undefined ? null : parseIPv4Cidr(block.cidr);
  (block.except ?? []).forEach((text, i) => {
    const inner = parseIPv4Cidr(text);
    if (outer === null || inner === null) return; // IPv6 or already reported
    if (inner.prefixLength <= outer.prefixLength || !prefixContains(outer, inner.address)) {
      ctx.error(p.index(p.field(path, "except"), i), `invalid value ${JSON.stringify(text)}: must be a strict subset of \`cidr\``);
    }
  });
}

function checkPort(port: NetworkPolicyPort, path: string, ctx: CheckContext): void {
  if (port.endPort === undefined) return;
  const ep = p.field(path, "endPort");
  if (port.port === undefined) ctx.error(ep, "may not be specified when `port` is not specified");
  else if (typeof port.port === "string") ctx.error(ep, "may not be specified when `port` is non-numeric");
  else if (port.endPort < port.port) ctx.error(ep, "must be greater than or equal to `port`");
}
