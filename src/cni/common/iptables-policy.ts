// NetworkPolicy in the iptables personality, as Calico's felix lays it out in the filter table: FORWARD
// jumps first to cali-FORWARD, where established/related traffic is accepted and invalid dropped before
// any policy; packets from a workload interface go to cali-fw-<iface> (the pod's egress policy), packets
// to one go to cali-tw-<iface> (its ingress policy), each a PROGRAM target consulting the compiled
// policy map for that pod; pod-to-host traffic passes the pod's egress policy in INPUT. Policy here sees
// the packet after kube-proxy's DNAT (PREROUTING) and before any SNAT (POSTROUTING).
import { ReservedIdentity } from "../../../datapath/identity.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { DropReason } from "../../../datapath/reasons.js";
import type { NetDevice } from "../../net/device.js";
import { ProgramVerdict, type NfProgramFn, type NfRuleSpec } from "../../net/netfilter/index.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import type { SkBuff } from "../../skb/skbuff.js";
import type { PolicyCompiler } from "../../policy/compiler.js";
import { explainAt, formatCompiled } from "../../policy/explain.js";
import { read16, read32 } from "../../wire/bytes.js";

const IPPROTO_ICMP = 1;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPPROTO_SCTP = 132;

export const CALI_CHAINS = {
  FORWARD: "cali-FORWARD",
  INPUT: "cali-INPUT",
  FROM_WL: "cali-from-wl-dispatch",
  TO_WL: "cali-to-wl-dispatch",
} as const;

/** Destination port (or ICMP type) of an IPv4 packet at skb.head; 0 for fragments and other protocols. */
function policyPort(skb: SkBuff, proto: number): number {
  const b = skb.data;
  const ip = skb.head;
  if ((read16(b, ip + 6) & 0x1fff) !== 0) return 0;
  const l4 = ip + (b[ip]! & 0x0f) * 4;
  if (proto === IPPROTO_TCP || proto === IPPROTO_UDP || proto === IPPROTO_SCTP) return l4 + 4 <= skb.tail ? read16(b, l4 + 2) : 0;
  if (proto === IPPROTO_ICMP) return l4 < skb.tail ? b[l4]! : 0;
  return 0;
}

/** The compiled decision for one pod in one direction, as a PROGRAM target. */
function policyProgram(compiler: PolicyCompiler, podKey: string, direction: number): NfProgramFn {
  return (skb, _in, _out, drop) => {
    const ep = compiler.endpoint(podKey);
    if (ep === undefined) return ProgramVerdict.RETURN;
    const ipcache = compiler.ipcacheOf(ep.pod.node);
    const b = skb.data;
    const ip = skb.head;
    const peer = read32(b, ip + (direction === Direction.INGRESS ? 12 : 16));
    const proto = b[ip + 9]!;
    const port = policyPort(skb, proto);
    const found = ipcache === undefined ? 0 : ipcache.lookupV4(peer);
    const identity = found === 0 ? ReservedIdentity.WORLD : found;
    const verdict = ep.map.lookup(direction, identity, proto, port);
    if (verdict === PolicyVerdict.ALLOW) return ProgramVerdict.RETURN;
    drop.reason = verdict === PolicyVerdict.DENY ? DropReason.POLICY_DENY : DropReason.POLICY_DENIED;
    drop.dstIdentity = direction === Direction.INGRESS ? ep.identity : identity;
    const e = explainAt(compiler, podKey, direction, peer, proto, port);
    drop.explanation = e === null ? undefined : formatCompiled(e);
    return ProgramVerdict.DROP;
  };
}

export class IptablesPolicy {
  private readonly endpoints = new Map<string, string>();

  constructor(
    private readonly ns: NetNamespace,
    private readonly compiler: PolicyCompiler,
    /** Interface name prefix of workload interfaces ("cali"). */
    private readonly prefix: string,
  ) {}

  /** Creates the chains and the jumps from FORWARD (first rule) and INPUT. */
  install(): void {
    const f = this.ns.netfilter.table("filter");
    for (const name of Object.values(CALI_CHAINS)) f.newChain(name);
    const any = `${this.prefix}+`;
    const fwd: NfRuleSpec[] = [
      { ctstate: { states: ["RELATED", "ESTABLISHED"] }, comment: "established and related traffic is accepted before policy", target: { kind: "ACCEPT" } },
      { ctstate: { states: ["INVALID"] }, target: { kind: "DROP" } },
      { inIface: any, target: { kind: "JUMP", chain: CALI_CHAINS.FROM_WL } },
      { outIface: any, target: { kind: "JUMP", chain: CALI_CHAINS.TO_WL } },
      { inIface: any, comment: "policy accepted the packet", target: { kind: "ACCEPT" } },
      { outIface: any, comment: "policy accepted the packet", target: { kind: "ACCEPT" } },
    ];
    for (const r of fwd) f.append(CALI_CHAINS.FORWARD, r);
    f.append(CALI_CHAINS.INPUT, { ctstate: { states: ["RELATED", "ESTABLISHED"] }, target: { kind: "ACCEPT" } });
    f.append(CALI_CHAINS.INPUT, { inIface: any, comment: "workload to host: the pod's egress policy", target: { kind: "JUMP", chain: CALI_CHAINS.FROM_WL } });
    f.append(CALI_CHAINS.FROM_WL, { comment: "Unknown interface", target: { kind: "DROP" } });
    f.append(CALI_CHAINS.TO_WL, { comment: "Unknown interface", target: { kind: "DROP" } });
    this.assertJumps();
  }

  /** Puts the jumps to Calico's chains back at the top of FORWARD and INPUT (felix's insert mode), e.g. after kube-proxy prepended its own. */
  assertJumps(): void {
    const f = this.ns.netfilter.table("filter");
    for (const [hook, chain] of [["FORWARD", CALI_CHAINS.FORWARD], ["INPUT", CALI_CHAINS.INPUT]] as const) {
      const rules = f.chain(hook)?.rules ?? [];
      const at = rules.findIndex((r) => r.jumpChain?.name === chain);
      if (at === 0) continue;
      if (at > 0) f.delete(hook, at + 1);
      f.insert(hook, { target: { kind: "JUMP", chain } }, 1);
    }
  }

  /** A workload interface appeared: its dispatch rules and per-interface policy chains. */
  addEndpoint(dev: NetDevice, podKey: string): void {
    const f = this.ns.netfilter.table("filter");
    const name = dev.name;
    this.removeEndpoint(dev);
    this.endpoints.set(name, podKey);
    const fw = `cali-fw-${name}`;
    const tw = `cali-tw-${name}`;
    f.newChain(fw);
    f.newChain(tw);
    f.append(fw, { comment: `egress policy of pod ${podKey}`, target: { kind: "PROGRAM", name: `policy egress ${podKey}`, run: policyProgram(this.compiler, podKey, Direction.EGRESS) } });
    f.append(tw, { comment: `ingress policy of pod ${podKey}`, target: { kind: "PROGRAM", name: `policy ingress ${podKey}`, run: policyProgram(this.compiler, podKey, Direction.INGRESS) } });
    f.insert(CALI_CHAINS.FROM_WL, { inIface: name, target: { kind: "GOTO", chain: fw } }, 1);
    f.insert(CALI_CHAINS.TO_WL, { outIface: name, target: { kind: "GOTO", chain: tw } }, 1);
  }

  removeEndpoint(dev: NetDevice): void {
    const name = dev.name;
    if (!this.endpoints.delete(name)) return;
    const f = this.ns.netfilter.table("filter");
    for (const [chain, iface] of [[CALI_CHAINS.FROM_WL, "in"], [CALI_CHAINS.TO_WL, "out"]] as const) {
      const rules = f.chain(chain)?.rules ?? [];
      const at = rules.findIndex((r) => (iface === "in" ? r.spec.inIface : r.spec.outIface) === name);
      if (at >= 0) f.delete(chain, at + 1);
    }
    for (const c of [`cali-fw-${name}`, `cali-tw-${name}`]) {
      f.flush(c);
      f.deleteChain(c);
    }
  }
}
