// PolicyMap: one endpoint's L3/L4 policy (like Cilium's cilium_policy_<ep>), filled by the policy compiler.
// Entries (direction, peer identity | any, protocol | any, port range, ALLOW/DENY, ruleRef) are split into
// prefix-aligned port blocks stored as hash keys; a lookup probes a bounded set of keys whatever the entry count.
import { MapError, newMapStats } from "./errors.js";
import type { MapStats } from "./errors.js";
import { HashMap } from "./hashmap.js";
import { forEachPortBlock, portMask } from "./portblocks.js";

export const Direction = { INGRESS: 0, EGRESS: 1 } as const;
export type Direction = (typeof Direction)[keyof typeof Direction];

export const PolicyVerdict = { MISS: 0, ALLOW: 1, DENY: 2 } as const;
export type PolicyVerdict = (typeof PolicyVerdict)[keyof typeof PolicyVerdict];

/** One entry as the control plane wrote it (for dumps and explanations). */
export interface PolicyEntry {
  direction: Direction;
  identity: number;
  proto: number;
  portLo: number;
  portHi: number;
  verdict: PolicyVerdict;
  ruleRef: number;
}

// Block key = [identity, packed]; packed bits: 0-15 block start port, 16-20 prefix length (0..16),
// 21-28 protocol, 29 direction, 30 deny. Block value = [owning entries, smallest ruleRef among them].
const BLOCK_OWNERS = 0;
const BLOCK_RULE = 1;
// Entry key = [identity, direction << 8 | proto, portLo << 16 | portHi]; value = [verdict, ruleRef].
const ENTRY_VERDICT = 0;
const ENTRY_RULE = 1;
const PORT_LENGTHS = 17; // port prefix lengths 0..16
// Probe classes, most specific first: bit 1 = identity wildcard, bit 0 = protocol wildcard.
const CLASSES = 4;

function packBlock(direction: number, deny: number, proto: number, prefixLen: number, start: number): number {
  return ((deny << 30) | (direction << 29) | (proto << 21) | (prefixLen << 16) | start) >>> 0;
}

function classOf(identity: number, proto: number): number {
  return (identity === 0 ? 2 : 0) | (proto === 0 ? 1 : 0);
}

/**
 * Lookup semantics: among entries matching (direction, identity or any, proto or any, port in range),
 * DENY wins over ALLOW. `lastRuleRef` is the ruleRef of the first match in probe order: exact identity
 * before any, then exact protocol before any, then the longest port block; within one block the smallest
 * ruleRef of the entries that share it. Lookup cost: at most 2 verdicts x 4 classes x (port prefix lengths
 * present in that class) probes, independent of the number of entries.
 *
 * Capacity: maxEntries bounds both the entries and the port-block keys they expand to (as in Cilium, where
 * a port range costs one map key per aligned block); a full map returns MapError.FULL and counts stats.full.
 */
export class PolicyMap {
  readonly maxEntries: number;
  readonly stats: MapStats = newMapStats();
  /** ruleRef of the entry that decided the last lookup (0 after a MISS). */
  lastRuleRef = 0;
  /** Hash probes made by lookups so far (shows that cost does not grow with entries). */
  probes = 0;

  private readonly blocks: HashMap;
  private readonly entries: HashMap;
  private readonly lengthCounts = new Int32Array(2 * 2 * CLASSES * PORT_LENGTHS);
  private readonly lengthMasks = new Int32Array(2 * 2 * CLASSES);

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
    this.blocks = new HashMap({ keyWords: 2, valueWords: 2, maxEntries, noPrealloc: true });
    this.entries = new HashMap({ keyWords: 3, valueWords: 2, maxEntries, noPrealloc: true });
  }

  /** Number of entries (port ranges) written by the control plane. */
  get size(): number {
    return this.entries.size;
  }

  /** Number of port-block keys the entries expand to. */
  get blockCount(): number {
    return this.blocks.size;
  }

  /** Adds or replaces the entry keyed by (direction, identity, proto, portLo, portHi). 0 ok, else a MapError code. */
  upsert(
    direction: number,
    identity: number,
    proto: number,
    portLo: number,
    portHi: number,
    verdict: number,
    ruleRef: number,
  ): number {
    if (!validKey(direction, identity, proto, portLo, portHi)) return MapError.INVALID;
    if ((verdict !== PolicyVerdict.ALLOW && verdict !== PolicyVerdict.DENY) || !isU32(ruleRef)) return MapError.INVALID;
    const existing = this.findEntry(direction, identity, proto, portLo, portHi);
    if (existing >= 0) {
      const oldVerdict = this.entries.values[existing * 2 + ENTRY_VERDICT]!;
      const oldRule = this.entries.values[existing * 2 + ENTRY_RULE]!;
      if (oldVerdict === verdict && oldRule === ruleRef) return 0;
      this.entries.deleteSlot(existing);
      this.removeBlocks(direction, identity, proto, portLo, portHi, oldVerdict, oldRule);
      if (!this.addBlocks(direction, identity, proto, portLo, portHi, verdict, ruleRef)) {
        this.addBlocks(direction, identity, proto, portLo, portHi, oldVerdict, oldRule);
        this.storeEntry(direction, identity, proto, portLo, portHi, oldVerdict, oldRule);
        return MapError.FULL;
      }
    } else {
      if (this.entries.size >= this.maxEntries) {
        this.stats.full++;
        return MapError.FULL;
      }
      if (!this.addBlocks(direction, identity, proto, portLo, portHi, verdict, ruleRef)) return MapError.FULL;
      this.stats.inserts++;
    }
    this.storeEntry(direction, identity, proto, portLo, portHi, verdict, ruleRef);
    return 0;
  }

  /** Removes the entry with exactly this key; false when absent. */
  delete(direction: number, identity: number, proto: number, portLo: number, portHi: number): boolean {
    if (!validKey(direction, identity, proto, portLo, portHi)) return false;
    const slot = this.findEntry(direction, identity, proto, portLo, portHi);
    if (slot < 0) return false;
    const verdict = this.entries.values[slot * 2 + ENTRY_VERDICT]!;
    const rule = this.entries.values[slot * 2 + ENTRY_RULE]!;
    this.entries.deleteSlot(slot);
    this.removeBlocks(direction, identity, proto, portLo, portHi, verdict, rule);
    this.stats.deletes++;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.blocks.clear();
    this.lengthCounts.fill(0);
    this.lengthMasks.fill(0);
  }

  /** Verdict for a packet (proto: IP protocol byte, port: 16-bit destination port); DENY wins; sets lastRuleRef. */
  lookup(direction: number, identity: number, proto: number, port: number): number {
    this.stats.lookups++;
    const dir = direction & 1;
    proto &= 0xff;
    if (this.probe(dir, 1, identity >>> 0, proto, port)) {
      this.stats.hits++;
      return PolicyVerdict.DENY;
    }
    if (this.probe(dir, 0, identity >>> 0, proto, port)) {
      this.stats.hits++;
      return PolicyVerdict.ALLOW;
    }
    this.stats.misses++;
    this.lastRuleRef = 0;
    return PolicyVerdict.MISS;
  }

  /** All entries, in storage order (allocates; for dumps, explanations and tests). */
  dump(): PolicyEntry[] {
    const out: PolicyEntry[] = [];
    const keys = this.entries.keys;
    const values = this.entries.values;
    for (let slot = this.entries.nextSlot(-1); slot >= 0; slot = this.entries.nextSlot(slot)) {
      out.push({
        direction: (keys[slot * 3 + 1]! >>> 8) as Direction,
        identity: keys[slot * 3]!,
        proto: keys[slot * 3 + 1]! & 0xff,
        portLo: keys[slot * 3 + 2]! >>> 16,
        portHi: keys[slot * 3 + 2]! & 0xffff,
        verdict: values[slot * 2 + ENTRY_VERDICT]! as PolicyVerdict,
        ruleRef: values[slot * 2 + ENTRY_RULE]!,
      });
    }
    return out;
  }

  private probe(dir: number, deny: number, identity: number, proto: number, port: number): boolean {
    const base = (dir * 2 + deny) * CLASSES;
    const masks = this.lengthMasks;
    const blocks = this.blocks;
    for (let cls = 0; cls < CLASSES; cls++) {
      let mask = masks[base + cls]!;
      if (mask === 0) continue;
      // An exact class needs a non-zero packet value; 0 in the packet only matches wildcard entries.
      if ((cls & 2) === 0 && identity === 0) continue;
      if ((cls & 1) === 0 && proto === 0) continue;
      const id = (cls & 2) === 0 ? identity : 0;
      const pr = (cls & 1) === 0 ? proto : 0;
      do {
        const len = 31 - Math.clz32(mask);
        mask ^= 1 << len;
        this.probes++;
        const slot = blocks.find2(id, packBlock(dir, deny, pr, len, port & portMask(len)));
        if (slot >= 0) {
          this.lastRuleRef = blocks.values[slot * 2 + BLOCK_RULE]!;
          return true;
        }
      } while (mask !== 0);
    }
    return false;
  }

  private findEntry(direction: number, identity: number, proto: number, portLo: number, portHi: number): number {
    const key = this.entries.key;
    key[0] = identity;
    key[1] = (direction << 8) | proto;
    key[2] = ((portLo << 16) | portHi) >>> 0;
    return this.entries.findKey(key, 0);
  }

  private storeEntry(
    direction: number,
    identity: number,
    proto: number,
    portLo: number,
    portHi: number,
    verdict: number,
    ruleRef: number,
  ): void {
    const key = this.entries.key;
    key[0] = identity;
    key[1] = (direction << 8) | proto;
    key[2] = ((portLo << 16) | portHi) >>> 0;
    const slot = this.entries.upsert(); // capacity was checked by the caller
    this.entries.values[slot * 2 + ENTRY_VERDICT] = verdict;
    this.entries.values[slot * 2 + ENTRY_RULE] = ruleRef;
  }

  /** Adds one owner to every block of the range; false (nothing changed, stats.full counted) when blocks would overflow. */
  private addBlocks(
    direction: number,
    identity: number,
    proto: number,
    portLo: number,
    portHi: number,
    verdict: number,
    ruleRef: number,
  ): boolean {
    const deny = verdict === PolicyVerdict.DENY ? 1 : 0;
    const blocks = this.blocks;
    let needed = 0;
    forEachPortBlock(portLo, portHi, (start, len) => {
      if (blocks.find2(identity, packBlock(direction, deny, proto, len, start)) < 0) needed++;
    });
    if (blocks.size + needed > this.maxEntries) {
      this.stats.full++;
      return false;
    }
    const countBase = ((direction * 2 + deny) * CLASSES + classOf(identity, proto)) * PORT_LENGTHS;
    const maskIndex = (direction * 2 + deny) * CLASSES + classOf(identity, proto);
    forEachPortBlock(portLo, portHi, (start, len) => {
      const slot = blocks.upsert2(identity, packBlock(direction, deny, proto, len, start));
      const values = blocks.values;
      if (blocks.created) {
        values[slot * 2 + BLOCK_OWNERS] = 1;
        values[slot * 2 + BLOCK_RULE] = ruleRef;
        if (this.lengthCounts[countBase + len]!++ === 0) this.lengthMasks[maskIndex]! |= 1 << len;
      } else {
        values[slot * 2 + BLOCK_OWNERS]!++;
        if (ruleRef < values[slot * 2 + BLOCK_RULE]!) values[slot * 2 + BLOCK_RULE] = ruleRef;
      }
    });
    return true;
  }

  /** Drops one owner from every block of the range (the entry itself is already gone from `entries`). */
  private removeBlocks(
    direction: number,
    identity: number,
    proto: number,
    portLo: number,
    portHi: number,
    verdict: number,
    ruleRef: number,
  ): void {
    const deny = verdict === PolicyVerdict.DENY ? 1 : 0;
    const blocks = this.blocks;
    const countBase = ((direction * 2 + deny) * CLASSES + classOf(identity, proto)) * PORT_LENGTHS;
    const maskIndex = (direction * 2 + deny) * CLASSES + classOf(identity, proto);
    forEachPortBlock(portLo, portHi, (start, len) => {
      const slot = blocks.find2(identity, packBlock(direction, deny, proto, len, start));
      if (slot < 0) return; // cannot happen while entries and blocks agree
      const values = blocks.values;
      if (--values[slot * 2 + BLOCK_OWNERS]! === 0) {
        blocks.deleteSlot(slot);
        if (--this.lengthCounts[countBase + len]! === 0) this.lengthMasks[maskIndex]! &= ~(1 << len);
      } else if (values[slot * 2 + BLOCK_RULE] === ruleRef) {
        values[slot * 2 + BLOCK_RULE] = this.smallestOwnerRule(direction, identity, proto, verdict, start, len);
      }
    });
  }

  /** Smallest ruleRef among remaining entries whose block decomposition contains (start, len). */
  private smallestOwnerRule(
    direction: number,
    identity: number,
    proto: number,
    verdict: number,
    start: number,
    len: number,
  ): number {
    const keys = this.entries.keys;
    const values = this.entries.values;
    const end = start + (0x10000 >>> len) - 1;
    const parentStart = len === 0 ? 0 : start & portMask(len - 1);
    const parentEnd = len === 0 ? 0 : parentStart + (0x10000 >>> (len - 1)) - 1;
    let best = 0xffffffff;
    for (let slot = this.entries.nextSlot(-1); slot >= 0; slot = this.entries.nextSlot(slot)) {
      if (keys[slot * 3] !== identity || keys[slot * 3 + 1] !== ((direction << 8) | proto)) continue;
      if (values[slot * 2 + ENTRY_VERDICT] !== verdict) continue;
      const lo = keys[slot * 3 + 2]! >>> 16;
      const hi = keys[slot * 3 + 2]! & 0xffff;
      const containsBlock = lo <= start && end <= hi;
      const containsParent = len > 0 && lo <= parentStart && parentEnd <= hi;
      if (containsBlock && !containsParent && values[slot * 2 + ENTRY_RULE]! < best) best = values[slot * 2 + ENTRY_RULE]!;
    }
    return best;
  }
}

function isU32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
}

function validKey(direction: number, identity: number, proto: number, portLo: number, portHi: number): boolean {
  return (
    (direction === Direction.INGRESS || direction === Direction.EGRESS) &&
    isU32(identity) &&
    Number.isInteger(proto) &&
    proto >= 0 &&
    proto <= 255 &&
    Number.isInteger(portLo) &&
    Number.isInteger(portHi) &&
    portLo >= 0 &&
    portLo <= portHi &&
    portHi <= 65535
  );
}
