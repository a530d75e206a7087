// NetworkPolicy in the iptables personality, per workload endpoint as Calico's felix lays it out: packets
// from a workload interface are dispatched (cali-from-wl-dispatch) to cali-fw-<iface> (the pod's egress
// policy), packets to one (cali-to-wl-dispatch) to cali-tw-<iface> (its ingress policy). Each chain
// accepts established and related traffic first and drops invalid, then runs the compiled policy map
// for that pod as a PROGRAM target; what policy allows gets felix's accept mark and returns (the end of
// FORWARD accepts it). The static chains around these are felix-chains.ts. Policy sees the packet after
// kube-proxy's DNAT (PREROUTING) and before any SNAT (POSTROUTING).
import { ReservedIdentity } from "../../../datapath/identity.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { DropReason } from "../../../datapath/reasons.js";
import type { NetDevice } from "../../net/device.js";
import { ProgramVerdict, type NfProgramFn, type NfRuleSpec } from "../../net/netfilter/index.js";
import { assertFelixJumps, CALI_CHAINS, encapDropRules, felixRules, installFelixChains, MARK_ACCEPT, type FelixOptions } from "./felix-chains.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import type { SkBuff } from "../../skb/skbuff.js";
import type { PolicyCompiler } from "../../policy/compiler.js";
import { explainAt, formatCompiled } from "../../policy/explain.js";
import { read16, read32 } from "../../wire/bytes.js";

const IPPROTO_ICMP = 1;
const IPPROTO_TCP = 6;
const IPPROTO_UDP = 17;
const IPPROTO_SCTP = 132;

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
    if (ep === undefined) return ProgramVerdict.CONTINUE;
    const ipcache = compiler.ipcacheOf(ep.pod.node);
    const b = skb.data;
    const ip = skb.head;
    const peer = read32(b, ip + (direction === Direction.INGRESS ? 12 : 16));
    const proto = b[ip + 9]!;
    const port = policyPort(skb, proto);
    const found = ipcache === undefined ? 0 : ipcache.lookupV4(peer);
    const identity = found === 0 ? ReservedIdentity.WORLD : found;
    const verdict = ep.map.lookup(direction, identity, proto, port);
    if (verdict === PolicyVerdict.ALLOW) return ProgramVerdict.CONTINUE;
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
    private readonly options: FelixOptions,
  ) {}

  /** Creates felix's static chains and the jumps to them. */
  install(): void {
    installFelixChains(this.ns, this.options);
  }

  /** Puts felix's jumps back at the top of the built-in chains (insert mode), e.g. after kube-proxy prepended its own. */
  assertJumps(): void {
    assertFelixJumps(this.ns);
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
    const head: NfRuleSpec[] = [
      { ctstate: { states: ["RELATED", "ESTABLISHED"] }, target: { kind: "ACCEPT" } },
      { ctstate: { states: ["INVALID"] }, target: { kind: "DROP" } },
      { target: { kind: "MARK", value: 0, mask: MARK_ACCEPT } },
    ];
    const allowed: NfRuleSpec[] = [
      { comment: "policy accepted the packet", target: { kind: "MARK", value: MARK_ACCEPT, mask: MARK_ACCEPT } },
      { mark: { value: MARK_ACCEPT, mask: MARK_ACCEPT }, target: { kind: "RETURN" } },
    ];
    const egress: NfRuleSpec = { comment: `egress policy of pod ${podKey}`, target: { kind: "PROGRAM", name: `policy egress ${podKey}`, run: policyProgram(this.compiler, podKey, Direction.EGRESS) } };
    const ingress: NfRuleSpec = { comment: `ingress policy of pod ${podKey}`, target: { kind: "PROGRAM", name: `policy ingress ${podKey}`, run: policyProgram(this.compiler, podKey, Direction.INGRESS) } };
    for (const r of felixRules(fw, [...head, ...encapDropRules(this.options), egress, ...allowed])) f.append(fw, r);
    for (const r of felixRules(tw, [...head, ingress, ...allowed])) f.append(tw, r);
    f.insert(CALI_CHAINS.FROM_WL, felixRules(`${CALI_CHAINS.FROM_WL}/${name}`, [{ inIface: name, target: { kind: "GOTO", chain: fw } }])[0]!, 1);
    f.insert(CALI_CHAINS.TO_WL, felixRules(`${CALI_CHAINS.TO_WL}/${name}`, [{ outIface: name, target: { kind: "GOTO", chain: tw } }])[0]!, 1);
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
