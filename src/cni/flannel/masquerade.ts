// The iptables rules flanneld installs (trafficmngr/iptables): FLANNEL-POSTRTG in nat POSTROUTING
// (no NAT inside the pod network or for kube-proxy-marked packets, MASQUERADE --random-fully for pod
// traffic leaving it and for host traffic entering it) and FLANNEL-FWD in filter FORWARD (accept the
// pod network both ways).
import type { NetNamespace } from "../../net/stack/namespace.js";
import { formatPrefix, type Prefix4 } from "../ipam/prefix.js";

const COMMENT = "flanneld masq";

export function installFlannelRules(ns: NetNamespace, cluster: Prefix4, own: Prefix4): void {
  const nat = ns.netfilter.table("nat");
  const c = formatPrefix(cluster);
  const p = formatPrefix(own);
  nat.newChain("FLANNEL-POSTRTG");
  nat.append("POSTROUTING", { comment: COMMENT, target: { kind: "JUMP", chain: "FLANNEL-POSTRTG" } });
  const rules = [
    { mark: { value: 0x4000, mask: 0x4000 }, comment: COMMENT, target: { kind: "RETURN" } },
    { src: p, dst: c, comment: COMMENT, target: { kind: "RETURN" } },
    { src: c, dst: p, comment: COMMENT, target: { kind: "RETURN" } },
    { src: `!${c}`, dst: p, comment: COMMENT, target: { kind: "RETURN" } },
    { src: c, dst: "!224.0.0.0/4", comment: COMMENT, target: { kind: "MASQUERADE", randomFully: true } },
    { src: `!${c}`, dst: c, comment: COMMENT, target: { kind: "MASQUERADE", randomFully: true } },
  ] as const;
  for (const r of rules) nat.append("FLANNEL-POSTRTG", r);
  const filter = ns.netfilter.table("filter");
  filter.newChain("FLANNEL-FWD");
  filter.append("FORWARD", { comment: "flanneld forward", target: { kind: "JUMP", chain: "FLANNEL-FWD" } });
  filter.append("FLANNEL-FWD", { src: c, comment: "flanneld forward", target: { kind: "ACCEPT" } });
  filter.append("FLANNEL-FWD", { dst: c, comment: "flanneld forward", target: { kind: "ACCEPT" } });
}
