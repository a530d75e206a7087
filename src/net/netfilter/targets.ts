// Targets that need the namespace (iptables' DNAT, SNAT, MASQUERADE, REDIRECT, REJECT and the
// emulator's PROGRAM): they set up NAT bindings on the packet's conntrack entry, choose addresses
// as the kernel does, build REJECT's answer and turn a program's verdict into iptables' terms.

import { DropReason } from "../../../datapath/reasons.js";
import type { SeededRng } from "../../util/rng.js";
import type { NetDevice } from "../device.js";
import type { Conntrack } from "./conntrack/conntrack.js";
import { F } from "./conntrack/table.js";
import { tcpSetClosing } from "./conntrack/tcp.js";
import type { Frame } from "./frame.js";
import { siteOf } from "./frame.js";
import { hookManip, NatManip, NfHook, NfVerdict } from "./hooks.js";
import type { NetfilterHost } from "./host.js";
import type { NatEngine } from "./nat/engine.js";
import { NatRangeFlag, type NatRange } from "./nat/range.js";
import { buildIcmpError, buildTcpReset, rejectChecksumOk } from "./reject.js";
import { TargetKind, type NfRule } from "./table/rule.js";
import { ProgramVerdict, type ProgramDrop } from "./table/spec.js";
import type { NfChain } from "./table/table.js";
import { CONTINUE, RETURN } from "./table/traverse.js";

function failWith(f: Frame, reason: number, site: string): number {
  f.dropReason = reason;
  f.dropSite = site;
  return NfVerdict.DROP;
}

export class TargetRunner {
  private readonly programDrop: ProgramDrop = { reason: 0, explanation: undefined, dstIdentity: 0 };
  private nextIpId: number;

  constructor(
    private readonly host: NetfilterHost,
    private readonly conntrack: Conntrack,
    private readonly nat: NatEngine,
    rng: SeededRng,
  ) {
    this.nextIpId = rng.nextU32() & 0xffff;
  }

  exec(f: Frame, rule: NfRule, chain: NfChain, position: number): number {
    switch (rule.target) {
      case TargetKind.REJECT:
        f.reply = this.buildReject(f, rule);
        return NfVerdict.STOLEN;
      case TargetKind.DNAT:
      case TargetKind.SNAT:
        return this.natTarget(f, rule.natRange!);
      case TargetKind.MASQUERADE:
        return this.masquerade(f, rule, chain, position);
      case TargetKind.REDIRECT:
        return this.redirect(f, rule, chain, position);
      case TargetKind.PROGRAM:
        return this.program(f, rule, chain, position);
      default:
        return CONTINUE;
    }
  }

  private natTarget(f: Frame, range: NatRange): number {
    const i = f.ctx.ctIndex;
    if (i >= 0) this.nat.setup(i, range, hookManip(f.hook));
    return NfVerdict.ACCEPT;
  }

  /** MASQUERADE: SNAT to the outgoing interface's address for the next hop (inet_select_addr). */
  private masquerade(f: Frame, rule: NfRule, chain: NfChain, position: number): number {
    const i = f.ctx.ctIndex;
    if (i < 0) return NfVerdict.ACCEPT;
    const t = this.conntrack.table;
    if (t.src(i, 0) === 0) return NfVerdict.ACCEPT;
    const out = f.outDev;
    const nextHop = f.skb!.nextHop !== 0 ? f.skb!.nextHop : f.h.dst4;
    const src = out === null ? 0 : this.sourceFor(nextHop, out);
    if (src === 0) {
      return failWith(f, DropReason.NAT_NO_MAPPING, `${siteOf("nat", chain, position, rule)}:masquerade-no-address`);
    }
    t.set(i, F.MASQ_IFINDEX, out!.ifindex);
    const r = rule.natRange!;
    this.nat.setup(i, { ...r, flags: r.flags | NatRangeFlag.MAP_IPS, minAddr: src, maxAddr: src }, NatManip.SRC);
    return NfVerdict.ACCEPT;
  }

  /** REDIRECT: DNAT to this host (the incoming interface's address; 127.0.0.1 for local packets). */
  private redirect(f: Frame, rule: NfRule, chain: NfChain, position: number): number {
    const i = f.ctx.ctIndex;
    if (i < 0) return NfVerdict.ACCEPT;
    let addr: number;
    if (f.hook === NfHook.OUTPUT) addr = 0x7f000001;
    else addr = f.inDev === null ? 0 : this.host.primaryAddress(f.inDev);
    if (addr === 0) return failWith(f, DropReason.NAT_NO_MAPPING, `${siteOf("nat", chain, position, rule)}:redirect-no-address`);
    const r = rule.natRange!;
    this.nat.setup(i, { ...r, flags: r.flags | NatRangeFlag.MAP_IPS, minAddr: addr, maxAddr: addr }, NatManip.DST);
    return NfVerdict.ACCEPT;
  }

  private program(f: Frame, rule: NfRule, chain: NfChain, position: number): number {
    const d = this.programDrop;
    d.reason = DropReason.POLICY_DENIED;
    d.explanation = undefined;
    d.dstIdentity = 0;
    const v = rule.program!(f.skb!, f.inDev, f.outDev, d);
    switch (v) {
      case ProgramVerdict.ACCEPT:
        return NfVerdict.ACCEPT;
      case ProgramVerdict.STOLEN:
        return NfVerdict.STOLEN;
      case ProgramVerdict.CONTINUE:
        return CONTINUE;
      case ProgramVerdict.RETURN:
        return RETURN;
      default:
        f.dropReason = d.reason;
        f.dropSite = `${siteOf(f.table!.name, chain, position, rule)} PROGRAM ${rule.programName}`;
        f.dropExplanation = d.explanation;
        f.dropDstIdentity = d.dstIdentity;
        return NfVerdict.DROP;
    }
  }

  /** The kernel's source address choice (host.selectSourceAddress), falling back to dev's primary address. */
  private sourceFor(dst: number, dev: NetDevice | null): number {
    const select = this.host.selectSourceAddress;
    if (select !== undefined) return select.call(this.host, dst, dev);
    if (dev !== null) return this.host.primaryAddress(dev);
    return this.host.isLocalAddress(dst) ? dst : 0;
  }

  /** REJECT's answer (or null when the kernel would send none); the original is dropped either way. */
  private buildReject(f: Frame, rule: NfRule): Uint8Array | null {
    const skb = f.skb!;
    const h = f.h;
    const bytes = skb.data;
    const ip = skb.head;
    if (rule.rejectCode < 0) {
      const rst = buildTcpReset(bytes, ip);
      if (rst !== null) {
        const i = f.ctx.ctIndex;
        if (i >= 0) tcpSetClosing(this.conntrack, i);
      }
      return rst;
    }
    if (!rejectChecksumOk(bytes, ip)) return null;
    const send = this.host.sendIcmpError;
    if (send !== undefined) {
      send.call(this.host, skb, 3, rule.rejectCode, f.inDev);
      return null;
    }
    let src: number;
    if (this.host.isLocalAddress(h.dst4)) src = h.dst4;
    else src = this.sourceFor(h.src4, null);
    if (src === 0 && f.inDev !== null) src = this.host.primaryAddress(f.inDev);
    const id = this.nextIpId;
    this.nextIpId = (this.nextIpId + 1) & 0xffff;
    return buildIcmpError(bytes.subarray(0, skb.tail), ip, 3, rule.rejectCode, 0, src, id);
  }
}
