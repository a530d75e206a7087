// Per-flow memo of one table's walks: a walk whose rules read only what the key holds (addresses,
// ports, protocol, whether the L4 header is usable, conntrack state bits, the devices (names fixed),
// the mark on entry, the hook) and whose targets only count, jump, set the mark or accept ends the
// same way for every packet with that key while the table is unedited and the versioned PROGRAMs it
// ran report the same stamps. Such a walk is recorded once (matched rules, the policy that ended it,
// rules and match modules evaluated, the mark it left) and replayed for the flow's later packets.

import type { NetDevice } from "../../device.js";
import type { NfChain } from "./chain.js";
import type { NfRule } from "./rule.js";

/** Records held: sets of two slots (a key goes to the set its hash picks, in either slot). */
const SLOTS = 2048;
const SET_MASK = SLOTS - 2;

/** The flow key of one walk (filled per table run; compared field by field). */
export class WalkKey {
  /** Addresses and ports as int32 (small integers stay unboxed in the records' fields). */
  src = 0;
  dst = 0;
  /** sport << 16 | dport. */
  ports = 0;
  /** hook, protocol, L4-usable flag and conntrack facts packed (see Netfilter's key filling). */
  bits = 0;
  mark = 0;
  inDev: NetDevice | null = null;
  outDev: NetDevice | null = null;

  hash(): number {
    let x = Math.imul(this.src ^ 0x9e3779b9, 0x85ebca6b) ^ this.dst;
    x = Math.imul(x ^ (x >>> 15), 0xc2b2ae35) ^ this.ports;
    x = Math.imul(x ^ (x >>> 13), 0x27d4eb2f) ^ this.bits ^ this.mark;
    // murmur3's finalizer: every key bit reaches the low bits the slot index takes.
    x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
    x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
    return (x ^ (x >>> 16)) >>> 0;
  }
}

/** What one walk did, as a traversal records it. */
export class WalkRecorder {
  /** False once the walk evaluated a rule or ran a target a replay cannot repeat. */
  replayable = true;
  /** Matched rules, in order (each counts the packet). */
  readonly rules: NfRule[] = [];
  /** The built-in chain whose policy ended the walk, or null. */
  policy: NfChain | null = null;
  /** Versioned PROGRAM rules that ran, with the stamps they reported before running. */
  readonly programs: NfRule[] = [];
  readonly versions: number[] = [];

  reset(): void {
    this.replayable = true;
    this.rules.length = 0;
    this.policy = null;
    this.programs.length = 0;
    this.versions.length = 0;
  }

  matched(rule: NfRule): void {
    this.rules.push(rule);
  }

  ranProgram(rule: NfRule, version: number): void {
    this.programs.push(rule);
    this.versions.push(version);
  }
}

const NO_PROGRAMS: readonly NfRule[] = [];
const NO_VERSIONS: readonly number[] = [];

/** One remembered walk: its key, the table generation it holds for and, when replayable, its effects. */
export class WalkRecord {
  readonly src: number;
  readonly dst: number;
  readonly ports: number;
  readonly bits: number;
  readonly mark: number;
  readonly inDev: NetDevice | null;
  readonly outDev: NetDevice | null;
  readonly rules: readonly NfRule[];
  readonly policy: NfChain | null;
  readonly programs: readonly NfRule[];
  readonly versions: readonly number[];
  /** Replayed packets (and their bytes) not yet added to rules and policy (see deferred-counts.ts). */
  pendingPackets = 0;
  pendingBytes = 0;
  /** The memo holding this record (set by store; a link is taken only into the memo it was made for). */
  owner: WalkMemo | null = null;
  /**
   * The record the walk after this one (in the same netfilter, at the same depth) took last time: the
   * packet's next table or hook, or the next packet's first walk. Tried before the memo's hash lookup
   * (see WalkMemo.findAfter).
   */
  next: WalkRecord | null = null;

  constructor(
    key: WalkKey,
    readonly generation: number,
    /** False: walks with this key must run in full (no effects below are kept). */
    readonly replayable: boolean,
    rec: WalkRecorder,
    readonly rulesEvaluated: number,
    readonly matchesEvaluated: number,
    readonly markOut: number,
  ) {
    this.src = key.src;
    this.dst = key.dst;
    this.ports = key.ports;
    this.bits = key.bits;
    this.mark = key.mark;
    this.inDev = key.inDev;
    this.outDev = key.outDev;
    this.rules = replayable ? rec.rules.slice() : [];
    this.policy = replayable ? rec.policy : null;
    // Most walks run no PROGRAM: they share one empty list (no array of their own to load per replay).
    const versioned = replayable && rec.programs.length > 0;
    this.programs = versioned ? rec.programs.slice() : NO_PROGRAMS;
    this.versions = versioned ? rec.versions.slice() : NO_VERSIONS;
  }

  matches(key: WalkKey, generation: number): boolean {
    return this.generation === generation && this.sameKey(key);
  }

  sameKey(key: WalkKey): boolean {
    return (
      this.src === key.src &&
      this.dst === key.dst &&
      this.ports === key.ports &&
      this.bits === key.bits &&
      this.mark === key.mark &&
      this.inDev === key.inDev &&
      this.outDev === key.outDev
    );
  }

  /** Adds the pending replayed packets to the matched rules' and the policy's counters. */
  flushPending(): void {
    const packets = this.pendingPackets;
    const bytes = this.pendingBytes;
    this.pendingPackets = 0;
    this.pendingBytes = 0;
    const rules = this.rules;
    for (let k = 0; k < rules.length; k++) rules[k]!.addCounts(packets, bytes);
    this.policy?.policyCounter.addCounts(packets, bytes);
  }

  /** True while every versioned PROGRAM the walk ran reports the stamp it had. */
  programsCurrent(): boolean {
    const programs = this.programs;
    for (let k = 0; k < programs.length; k++) if (programs[k]!.programVersion!() !== this.versions[k]) return false;
    return true;
  }
}

/** Two-way set-associative store of walk records by key hash (a third key in a set evicts the older of its two). */
export class WalkMemo {
  private readonly slots: (WalkRecord | undefined)[] = new Array<WalkRecord | undefined>(SLOTS).fill(undefined);
  /** Replays served (monotonic; for tests and profiling). */
  hits = 0;

  /**
   * find() for the walk that follows prev's (in the same netfilter): prev's successor when it is this
   * memo's record for key and generation (no hash, no set probe), else the set lookup, which prev
   * then links to. A successor the sets have since evicted still replays exactly: it was recorded
   * for the same key and table generation as any record find() could return.
   */
  findAfter(prev: WalkRecord | null, key: WalkKey, generation: number): WalkRecord | null {
    if (prev === null) return this.find(key, key.hash(), generation);
    const next = prev.next;
    if (next !== null && next.owner === this && next.matches(key, generation)) return next;
    const found = this.find(key, key.hash(), generation);
    if (found !== null) prev.next = found;
    return found;
  }

  find(key: WalkKey, hash: number, generation: number): WalkRecord | null {
    const set = hash & SET_MASK;
    const first = this.slots[set];
    if (first !== undefined && first.matches(key, generation)) return first;
    const second = this.slots[set + 1];
    return second !== undefined && second.matches(key, generation) ? second : null;
  }

  /** Stores record for key: over its own earlier record, else first in its set (the newer key is kept first; the older second is dropped). */
  store(key: WalkKey, hash: number, record: WalkRecord): void {
    record.owner = this;
    const set = hash & SET_MASK;
    const first = this.slots[set];
    const second = this.slots[set + 1];
    if (second !== undefined && second.sameKey(key)) this.slots[set + 1] = record;
    else if (first === undefined || first.sameKey(key)) this.slots[set] = record;
    else {
      this.slots[set + 1] = first;
      this.slots[set] = record;
    }
  }

  clear(): void {
    this.slots.fill(undefined);
  }
}
