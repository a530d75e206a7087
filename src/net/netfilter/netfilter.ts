// Netfilter for one network namespace: at each hook runs conntrack and the tables in the kernel's
// priority order (raw -300, conntrack -200, mangle -150, DNAT -100, filter 0, SNAT 100, confirm
// last), NAT bindings made only for a connection's first packet and applied to every later one, and
// every drop recorded once through world.drop with its reason and the deciding table/chain/rule.

import { DropReason } from "../../../datapath/reasons.js";
import { NatApplied, SkBuff } from "../../skb/skbuff.js";
import type { Simulator } from "../../engine/simulator.js";
import type { SeededRng } from "../../util/rng.js";
import { formatIPv4 } from "../../util/ip.js";
import { parseIp } from "../../wire/headers.js";
import { DeviceKind, type NetDevice } from "../device.js";
import type { NetWorld } from "../world.js";
import { Conntrack } from "./conntrack/conntrack.js";
import { FragmentMemory } from "./conntrack/fragments.js";
import { conntrackIn, CtInResult as CtInResultImport } from "./conntrack/resolve.js";
import { F as FImport, Ips as IpsImport } from "./conntrack/table.js";
import type { ConntrackConfig } from "./conntrack/timeouts.js";
import { CtState as CtStateImport } from "./ct-state.js";
import { Frame, siteOf } from "./frame.js";
import { hookManip, NatManip as NatManipImport, NF_HOOK_NAMES, NfHook as NfHookImport, NfVerdict as NfVerdictImport, type NfTableName } from "./hooks.js";
import type { NetfilterHost } from "./host.js";
import { NatEngine } from "./nat/engine.js";
import { RecentTables } from "./table/recent.js";
import { M, TargetKind } from "./table/rule.js";
import { formatTableSave } from "./table/format.js";
import { NfTable } from "./table/table.js";
import { WalkRecord, type WalkRecorder } from "./table/walk-memo.js";
import { TargetRunner } from "./targets.js";

// Imported constant objects the per-packet path reads go through module constants: V8 folds their
// members into the code (a read through an import binding checks the binding and the object's shape
// at every use). Cold paths (drops, rule facts) read the imports directly.
const CtInResult = CtInResultImport;
const F = FImport;
const Ips = IpsImport;
const CtState = CtStateImport;
const NatManip = NatManipImport;
const NfHook = NfHookImport;
const NfVerdict = NfVerdictImport;

/** "auto": conntrack runs once some rule needs it (NAT, ctstate, NOTRACK) or the nat table is used, as the kernel registers it per namespace on demand. */
export type ConntrackMode = "auto" | "on" | "off";

export interface NetfilterOptions {
  readonly conntrack?: Partial<ConntrackConfig>;
  readonly conntrackMode?: ConntrackMode;
  /** Chains with at least this many rules are walked through a lookup index (default 16; Infinity turns it off). */
  readonly chainIndexMinRules?: number;
  /** Replay a flow's remembered table walks instead of matching again (default true; see walk-memo.ts). */
  readonly replayWalks?: boolean;
}


/** Entry indexes in skb.ctEntry are tagged with the owning namespace: tag * 2^24 + index. */
const TAG_UNIT = 1 << 24;
const worldTags = new WeakMap<NetWorld, number>();

export class Netfilter {
  readonly conntrack: Conntrack;
  readonly nat: NatEngine;
  readonly recent = new RecentTables();
  private readonly fragments = new FragmentMemory();
  readonly rng: SeededRng;
  private mode: ConntrackMode;
  private readonly tables: { readonly [T in NfTableName]: NfTable };
  /** The tables INPUT/FORWARD and POSTROUTING walk, in order (held as objects: no lookup by name per packet). */
  private readonly mangleFilter: readonly NfTable[];
  private readonly mangleOnly: readonly NfTable[];
  private readonly tag: number;
  private readonly frames: Frame[] = [];
  private depth = 0;
  private readonly env: { host: NetfilterHost; rng: SeededRng; recent: RecentTables; now: number };
  /** Set by any table edit: needsCt/anyRules are re-read before their next use (kept on this object: read per packet). */
  private factsStale = true;
  private readonly sim: Simulator;
  private needsCt = false;
  private anyRules = false;
  /**
   * True while the facts are current and say every hook has nothing to do (no conntrack, no rule, no
   * DROP policy), as in most pod namespaces: run() then answers at once (false while facts are stale).
   */
  private quiet = false;
  private readonly targets: TargetRunner;
  private readonly indexMinRules: number | undefined;
  private readonly replayWalks: boolean;
  /** Hook runs so far (numbers each run for the carry from one hook to the next, see hook-carry.ts). */
  private runs = 0;

  constructor(
    readonly host: NetfilterHost,
    options: NetfilterOptions = {},
  ) {
    const world = host.world;
    const tag = (worldTags.get(world) ?? 0) + 1;
    worldTags.set(world, tag);
    this.tag = tag;
    const config = options.conntrack ?? {};
    if ((config.maxEntries ?? 0) >= TAG_UNIT) throw new RangeError(`netfilter: conntrack maxEntries must be below ${TAG_UNIT}`);
    this.conntrack = new Conntrack(world.sim, config);
    this.rng = world.sim.rng.fork();
    this.nat = new NatEngine(this.conntrack, this.rng);
    this.targets = new TargetRunner(host, this.conntrack, this.nat, this.rng);
    this.mode = options.conntrackMode ?? "auto";
    this.indexMinRules = options.chainIndexMinRules;
    this.replayWalks = options.replayWalks ?? true;
    const edited = (): void => {
      this.factsStale = true;
      this.quiet = false;
    };
    this.tables = { raw: new NfTable("raw", edited), mangle: new NfTable("mangle", edited), nat: new NfTable("nat", edited), filter: new NfTable("filter", edited) };
    this.sim = world.sim;
    this.mangleFilter = [this.tables.mangle, this.tables.filter];
    this.mangleOnly = [this.tables.mangle];
    this.env = { host, rng: this.rng, recent: this.recent, now: 0 };
  }

  get conntrackMode(): ConntrackMode {
    return this.mode;
  }

  /** A new mode is taken at the next hook run (the rule facts are read again). */
  set conntrackMode(mode: ConntrackMode) {
    this.mode = mode;
    this.factsStale = true;
    this.quiet = false;
  }

  table(name: NfTableName): NfTable {
    return this.tables[name];
  }

  /** True when conntrack runs in this namespace (see ConntrackMode). */
  get tracking(): boolean {
    if (this.factsStale) this.refreshRuleFacts();
    const mode = this.mode;
    return mode === "auto" ? this.needsCt : mode === "on";
  }

  /** Conntrack entry index of a packet (from skb.ctEntry) when it belongs to this namespace and is live, else -1. */
  entryOf(skb: SkBuff): number {
    const e = skb.ctEntry;
    if (e < 0) return -1;
    // floor(e / TAG_UNIT) === tag, as a subtraction.
    const i = e - this.tag * TAG_UNIT;
    if (i < 0 || i >= TAG_UNIT) return -1;
    return this.conntrack.table.inUse(i) ? i : -1;
  }

  /**
   * nf_ct_attach: gives a packet this namespace generates in answer to `orig` (an ICMP error, a
   * reset) orig's connection, as RELATED in the opposite direction, so NAT translates it back.
   */
  attachRelated(reply: SkBuff, orig: SkBuff): void {
    const i = this.entryOf(orig);
    if (i < 0 || orig.ctState & CtState.UNTRACKED) return;
    reply.ctEntry = orig.ctEntry;
    reply.ctState = CtState.RELATED | CtState.ATTACHED | (orig.ctState & CtState.REPLY ? 0 : CtState.REPLY);
  }

  /**
   * Runs the hook for an IPv4 packet (skb.head at the IPv4 header). Returns NfVerdict: on DROP the
   * packet was recorded as dropped, on STOLEN it was consumed (REJECT answered and dropped it, or a
   * PROGRAM took it); the caller just stops. continued: the caller changed nothing but the TTL since
   * this netfilter's previous hook for skb (see hook-carry.ts).
   */
  run(hook: number, skb: SkBuff, inDev: NetDevice | null, outDev: NetDevice | null, continued = false): number {
    // Kept this small so the JIT can inline it at the call sites: a quiet namespace costs no call.
    if (this.quiet) return NfVerdict.ACCEPT;
    return this.runHooks(hook, skb, inDev, outDev, continued);
  }

  private runHooks(hook: number, skb: SkBuff, inDev: NetDevice | null, outDev: NetDevice | null, continued: boolean): number {
    const tracking = this.tracking;
    if (!tracking && !this.anyRules) return NfVerdict.ACCEPT;
    const f = this.frames[this.depth] ?? this.newFrame();
    const run = ++this.runs;
    this.depth++;
    try {
      // The packet is passed along, not kept in the frame: the frame is old and the packet young, so
      // each such store would take the write barrier's slow path. Only a full walk keeps it (walk()).
      f.inDev = inDev;
      f.outDev = outDev;
      f.hook = hook;
      f.reply = null;
      f.clean = true;
      const carried = continued && f.carry.holds(skb, run);
      if (carried) f.h.ttl = skb.data[skb.head + 8]!;
      else if (!this.parse(f, skb)) return NfVerdict.ACCEPT;
      const v = this.runHook(f, skb, tracking, carried);
      if (v === NfVerdict.ACCEPT && f.clean) f.carry.keep(skb, run);
      return v;
    } finally {
      this.depth--;
    }
  }

  /** The hook's body; carried: the frame still holds the packet's conntrack facts from its previous hook. */
  private runHook(f: Frame, skb: SkBuff, tracking: boolean, carried: boolean): number {
    switch (f.hook) {
      case NfHook.PREROUTING:
      case NfHook.OUTPUT:
        return this.runEntryHook(f, skb, tracking);
      case NfHook.INPUT:
        return this.runSteps(f, skb, this.mangleFilter, true, true, carried);
      case NfHook.FORWARD:
        return this.runSteps(f, skb, this.mangleFilter, false, false, carried);
      case NfHook.POSTROUTING:
        return this.runSteps(f, skb, this.mangleOnly, true, true, carried);
      default:
        return NfVerdict.ACCEPT;
    }
  }

  private newFrame(): Frame {
    const f = new Frame(this.indexMinRules);
    f.exec = (rule, chain, position) => {
      f.clean = false;
      return this.targets.exec(f, rule, chain, position);
    };
    this.frames[this.depth] = f;
    return f;
  }

  /** iptables-save style dump of all tables (rules with [packets:bytes] counters). */
  save(counters = false): string {
    return (["raw", "mangle", "nat", "filter"] as const)
      .map((name) => formatTableSave(this.tables[name], counters))
      .join("");
  }

  // ---- hook bodies ------------------------------------------------------------------------

  private parse(f: Frame, skb: SkBuff): boolean {
    const h = f.h;
    parseIp(skb.data, skb.head, skb.tail, h);
    if (h.ipVersion !== 4) return false;
    const ctx = f.ctx;
    ctx.h = h;
    ctx.length = h.ipTotalLen;
    return true;
  }

  /** PREROUTING / OUTPUT: raw, conntrack, mangle, DNAT, and filter for OUTPUT. */
  private runEntryHook(f: Frame, skb: SkBuff, tracking: boolean): number {
    const hook = f.hook;
    const keep = this.keepsAttached(f, skb);
    if (!keep) {
      skb.ctState = 0;
      skb.ctEntry = -1;
    }
    this.loadCt(f, skb);
    const t = this.tables;
    let v = this.runTable(f, skb, t.raw);
    if (v !== NfVerdict.ACCEPT) return v;
    if (tracking && !keep && (skb.ctState & CtState.UNTRACKED) === 0) {
      const r = conntrackIn(this.conntrack, skb, skb.data, f.h, hook === NfHook.PREROUTING, this.tag * TAG_UNIT, this.fragments);
      if (r === CtInResult.TABLE_FULL) return this.drop(f, skb, DropReason.CT_CREATE_FAILED, "netfilter/conntrack:table-full");
    }
    skb.ctState &= ~CtState.ATTACHED;
    this.loadCt(f, skb);
    v = this.runTable(f, skb, t.mangle);
    if (v !== NfVerdict.ACCEPT) return v;
    v = this.natHook(f, skb);
    if (v !== NfVerdict.ACCEPT) return v;
    if (hook === NfHook.OUTPUT) return this.runTable(f, skb, t.filter);
    return NfVerdict.ACCEPT;
  }

  /** INPUT / FORWARD / POSTROUTING: the given tables, then SNAT and confirm where the kernel does them. */
  private runSteps(f: Frame, skb: SkBuff, tables: readonly NfTable[], nat: boolean, confirm: boolean, carried: boolean): number {
    if (!carried) this.loadCt(f, skb);
    for (let k = 0; k < tables.length; k++) {
      const v = this.runTable(f, skb, tables[k]!);
      if (v !== NfVerdict.ACCEPT) return v;
    }
    if (nat) {
      const v = this.natHook(f, skb);
      if (v !== NfVerdict.ACCEPT) return v;
    }
    if (confirm) return this.confirm(f, skb);
    return NfVerdict.ACCEPT;
  }

  /** A packet keeps the entry it carries when it was attached here (REJECT reply, ICMP error) or loops back locally. */
  private keepsAttached(f: Frame, skb: SkBuff): boolean {
    if (this.entryOf(skb) < 0 && (skb.ctState & CtState.UNTRACKED) === 0) return false;
    if (skb.ctState & CtState.ATTACHED) return true;
    if (f.hook === NfHook.PREROUTING) return f.inDev === null || f.inDev.kind === DeviceKind.LOOPBACK;
    return false;
  }

  private loadCt(f: Frame, skb: SkBuff): void {
    const ctx = f.ctx;
    const i = this.entryOf(skb);
    ctx.ctIndex = i;
    ctx.ctStatus = i >= 0 ? this.conntrack.table.status(i) : 0;
    ctx.ctDir = skb.ctState & CtState.REPLY ? 1 : 0;
  }

  private runTable(f: Frame, skb: SkBuff, table: NfTable): number {
    table.knowHooks();
    const bit = 1 << f.hook;
    if ((table.walkHooks & bit) === 0) {
      if ((table.emptyHooks & bit) === 0) return NfVerdict.ACCEPT;
      // An empty built-in chain: only its policy counters move. The kernel still runs the table once
      // it is instantiated in the namespace (on first use, i.e. once anything edited it).
      if (table.generation > 0) table.traversals++;
      table.deferred.emptyChainRan(f.hook, f.ctx.length);
      return NfVerdict.ACCEPT;
    }
    f.table = table;
    table.traversals++;
    if (!this.replayWalks) return this.finish(f, skb, this.walk(f, skb, table, null));
    const memo = table.walkMemo;
    this.fillWalkKey(f, skb);
    const prev = f.lastRecord;
    const known = memo.findAfter(prev, f.key, table.generation);
    if (known !== null) {
      f.lastRecord = known;
      if (!known.replayable) return this.finish(f, skb, this.walk(f, skb, table, null));
      if (known.programsCurrent()) {
        memo.hits++;
        return this.replay(f, skb, table, known);
      }
    }
    return this.walkAndRemember(f, skb, table, prev);
  }

  /** A walk with no replayable record: run in full and remembered (linked from the packet's previous walk). */
  private walkAndRemember(f: Frame, skb: SkBuff, table: NfTable, prev: WalkRecord | null): number {
    const memo = table.walkMemo;
    const rec = f.rec;
    rec.reset();
    const rulesBefore = table.rulesEvaluated;
    const matchesBefore = table.matchesEvaluated;
    const v = this.walk(f, skb, table, rec);
    let record: WalkRecord | null = null;
    if (!rec.replayable) record = new WalkRecord(f.key, table.generation, false, rec, 0, 0, 0);
    else if (v === NfVerdict.ACCEPT) {
      const rules = table.rulesEvaluated - rulesBefore;
      const matches = table.matchesEvaluated - matchesBefore;
      record = new WalkRecord(f.key, table.generation, true, rec, rules, matches, skb.mark);
    }
    if (record !== null) {
      memo.store(f.key, f.key.hash(), record);
      if (prev !== null) prev.next = record;
    }
    f.lastRecord = record;
    return this.finish(f, skb, v);
  }

  /**
   * Matches table's rules for the packet; the packet (for the matches and targets), the interface
   * names and the clock the matches read are filled only here (replays need none of them).
   */
  private walk(f: Frame, skb: SkBuff, table: NfTable, rec: WalkRecorder | null): number {
    const ctx = f.ctx;
    f.skb = skb;
    ctx.skb = skb;
    ctx.inName = f.inDev?.name ?? "";
    ctx.outName = f.outDev?.name ?? "";
    this.env.now = this.sim.now;
    try {
      return f.trav.run(table, f.hook, ctx, this.env, f.exec, rec);
    } finally {
      f.skb = null;
      ctx.skb = null;
    }
  }

  /** Fills the frame's walk key from the packet and its conntrack facts. */
  private fillWalkKey(f: Frame, skb: SkBuff): void {
    const key = f.key;
    const h = f.h;
    const ctx = f.ctx;
    // As int32 (the same bits; the hash reads them so anyway): V8 keeps them unboxed in the records.
    key.src = h.src4 | 0;
    key.dst = h.dst4 | 0;
    key.ports = (h.srcPort << 16) | h.dstPort;
    const l4Usable = h.fragOffset === 0 && h.l4Offset >= 0 && h.status === 0;
    const status = ctx.ctStatus;
    key.bits =
      f.hook |
      (h.ipProto << 3) |
      (l4Usable ? 1 << 11 : 0) |
      ((skb.ctState & 0xff) << 12) |
      (ctx.ctIndex >= 0 ? 1 << 20 : 0) |
      (status & Ips.SRC_NAT ? 1 << 21 : 0) |
      (status & Ips.DST_NAT ? 1 << 22 : 0) |
      (ctx.ctDir << 23);
    key.mark = skb.mark;
    key.inDev = f.inDev;
    key.outDev = f.outDev;
  }

  /** Repeats a remembered accepting walk's effects: counters (deferred), evaluation tallies, the mark. */
  private replay(f: Frame, skb: SkBuff, table: NfTable, known: WalkRecord): number {
    table.deferred.replayed(known, f.ctx.length);
    table.rulesEvaluated += known.rulesEvaluated;
    table.matchesEvaluated += known.matchesEvaluated;
    skb.mark = known.markOut;
    return NfVerdict.ACCEPT;
  }

  /** Turns a traversal verdict into the hook's result: records drops, sends REJECT replies. */
  private finish(f: Frame, skb: SkBuff, v: number): number {
    if (v === NfVerdict.ACCEPT) return v;
    const trav = f.trav;
    const table = f.table!.name;
    if (v === NfVerdict.STOLEN && trav.rule?.target === TargetKind.REJECT) {
      const reply = f.reply;
      if (reply !== null) this.sendReply(skb, reply);
      return this.drop(f, skb, DropReason.HOST_STACK_REJECT, siteOf(table, trav.chain, trav.position, trav.rule), NfVerdict.STOLEN);
    }
    if (v === NfVerdict.STOLEN) return v;
    if (f.dropSite !== "") return this.drop(f, skb, f.dropReason, f.dropSite);
    return this.drop(f, skb, DropReason.NETFILTER_DROP, siteOf(table, trav.chain, trav.position, trav.rule));
  }

  /** Records the drop once and releases an entry only this packet was creating. */
  private drop(f: Frame, skb: SkBuff, reason: number, site: string, verdict: number = NfVerdict.DROP): number {
    const world = this.host.world;
    const dev = this.hookDevice(f);
    const explanation = f.dropExplanation;
    const dstIdentity = f.dropDstIdentity;
    const extra =
      explanation !== undefined || dstIdentity !== 0
        ? { ...(explanation !== undefined ? { explanation } : {}), ...(dstIdentity !== 0 ? { dstIdentity } : {}) }
        : undefined;
    world.drop(skb, { node: this.host.nodeName, device: dev?.name ?? "", hook: NF_HOOK_NAMES[f.hook] ?? "" }, reason, site, false, extra);
    f.dropSite = "";
    f.dropExplanation = undefined;
    f.dropDstIdentity = 0;
    const i = this.entryOf(skb);
    if (i >= 0 && !this.conntrack.table.confirmed(i) && (skb.ctState & CtState.REPLY) === 0) this.conntrack.kill(i);
    return verdict;
  }

  /** The device a drop or trace names: the input device before routing, the output device after. */
  private hookDevice(f: Frame): NetDevice | null {
    if (f.hook === NfHook.OUTPUT || f.hook === NfHook.POSTROUTING) return f.outDev ?? f.inDev;
    return f.inDev ?? f.outDev;
  }

  /** Sends REJECT's answer from this namespace, attached to the rejected packet's connection. */
  private sendReply(rejected: SkBuff, bytes: Uint8Array): void {
    const world = this.host.world;
    const reply = SkBuff.fromBytes(world.ledger.admit(), bytes);
    this.attachRelated(reply, rejected);
    this.host.outputIp(reply);
  }

  // ---- NAT hook and confirm ---------------------------------------------------------------

  /** nf_nat_ipv4_fn + nf_nat_inet_fn for the current hook. */
  private natHook(f: Frame, skb: SkBuff): number {
    const i = f.ctx.ctIndex;
    if (i < 0 || skb.ctState & CtState.UNTRACKED) return NfVerdict.ACCEPT;
    const hook = f.hook;
    const manip = hookManip(hook);
    const dir = skb.ctState & CtState.REPLY ? 1 : 0;
    const h = f.h;
    if (skb.ctState & CtState.RELATED && h.ipProto === 1 && h.fragOffset === 0) {
      f.clean = false;
      const applies = this.nat.applies(i, dir, manip);
      if (applies) this.snapshot(f, skb);
      if (!this.nat.translateError(i, dir, manip, skb.data, skb.head, skb.head + h.ipTotalLen)) {
        return this.drop(f, skb, DropReason.INVALID_PACKET, "netfilter/nat:icmp-error");
      }
      if (applies) this.rewritten(f, skb, manip);
      return NfVerdict.ACCEPT;
    }
    if (skb.ctState & (CtState.NEW | CtState.RELATED) && !this.nat.initialized(i, manip)) {
      // First packet of the connection at this manip: the nat table decides, else a null binding.
      f.clean = false;
      const v = this.runTable(f, skb, this.tables.nat);
      if (v !== NfVerdict.ACCEPT) return v;
      if (!this.nat.initialized(i, manip)) this.nat.nullBinding(i, manip);
      this.loadCt(f, skb);
    } else if (this.oifChanged(f, i, dir)) {
      this.conntrack.kill(i);
      return this.drop(f, skb, DropReason.NAT_NO_MAPPING, "netfilter/nat:masquerade-oif-changed");
    }
    if (!this.nat.applies(i, dir, manip)) return NfVerdict.ACCEPT;
    this.snapshot(f, skb);
    if (!this.nat.apply(i, dir, manip, skb.data, skb.head, skb.head + h.ipTotalLen, h.fragOffset === 0)) {
      return this.drop(f, skb, DropReason.WRITE_ERROR, "netfilter/nat:rewrite");
    }
    this.rewritten(f, skb, manip);
    return NfVerdict.ACCEPT;
  }

  /** nf_nat_oif_changed: a MASQUERADEd flow now leaving through another interface is killed. */
  private oifChanged(f: Frame, i: number, dir: number): boolean {
    if (f.hook !== NfHook.POSTROUTING || dir !== 0) return false;
    const masq = this.conntrack.table.get(i, F.MASQ_IFINDEX);
    return masq !== 0 && f.outDev !== null && masq !== f.outDev.ifindex;
  }

  private confirm(f: Frame, skb: SkBuff): number {
    const i = this.entryOf(skb);
    if (i < 0 || skb.ctState & CtState.REPLY) return NfVerdict.ACCEPT;
    const t = this.conntrack.table;
    if (t.confirmed(i) || t.status(i) & Ips.DYING) return NfVerdict.ACCEPT;
    f.clean = false;
    if (!this.conntrack.confirm(i)) return this.drop(f, skb, DropReason.CT_CREATE_FAILED, "netfilter/conntrack:insert-failed");
    return NfVerdict.ACCEPT;
  }

  /** Remembers the tuple before the packet's first NAT rewrite (skb.orig*). */
  private snapshot(f: Frame, skb: SkBuff): void {
    const h = f.h;
    if (skb.natApplied !== 0) return;
    skb.origSrc = h.src4;
    skb.origDst = h.dst4;
    skb.origSrcPort = h.ipProto === 1 ? h.icmpId : h.srcPort;
    skb.origDstPort = h.ipProto === 1 ? 0 : h.dstPort;
  }

  /** After a rewrite: marks the packet, re-reads its headers and leaves a hop note for tracing. */
  private rewritten(f: Frame, skb: SkBuff, manip: number): void {
    const h = f.h;
    const oldSrc = h.src4;
    const oldDst = h.dst4;
    const oldSport = h.srcPort;
    const oldDport = h.dstPort;
    const oldId = h.icmpId;
    this.parse(f, skb);
    const changed = oldSrc !== h.src4 || oldDst !== h.dst4 || oldSport !== h.srcPort || oldDport !== h.dstPort || oldId !== h.icmpId;
    if (!changed) return;
    skb.natApplied |= manip === NatManip.SRC ? NatApplied.SNAT : NatApplied.DNAT;
    const world = this.host.world;
    if (world.tracer.hops) {
      const kind = manip === NatManip.SRC ? "SNAT" : "DNAT";
      const note =
        manip === NatManip.SRC
          ? `${kind} ${formatIPv4(oldSrc)}:${oldSport} -> ${formatIPv4(h.src4)}:${h.srcPort}`
          : `${kind} ${formatIPv4(oldDst)}:${oldDport} -> ${formatIPv4(h.dst4)}:${h.dstPort}`;
      const dev = this.hookDevice(f);
      world.hop(skb, { node: this.host.nodeName, device: dev?.name ?? "", hook: NF_HOOK_NAMES[f.hook] ?? "" }, -1, note, false);
    }
  }

  private refreshRuleFacts(): void {
    const t = this.tables;
    this.factsStale = false;
    let needs = t.nat.inUse;
    let any = false;
    for (const table of [t.raw, t.mangle, t.nat, t.filter]) {
      for (const chain of table.chains()) {
        if (chain.rules.length > 0 || chain.policy === "DROP") any = true;
        for (const r of chain.rules) {
          if (r.has & (M.CTSTATE | M.CTDIR)) needs = true;
          if (r.target >= TargetKind.DNAT && r.target <= TargetKind.REDIRECT) needs = true;
          if (r.target === TargetKind.NOTRACK) needs = true;
        }
      }
    }
    this.needsCt = needs;
    this.anyRules = any;
    const mode = this.mode;
    this.quiet = !any && (mode === "auto" ? !needs : mode === "off");
  }
}

