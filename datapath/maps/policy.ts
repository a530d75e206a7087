// PolicyMap: one endpoint's L3/L4 policy (like Cilium's cilium_policy_<ep>), filled by the policy compiler.
// Entries (direction, peer identity | any, protocol | any, port range, ALLOW/DENY, ruleRef) are split into
// prefix-aligned port blocks stored as hash keys; a lookup probes a bounded set of keys whatever the entry count.
import { CELL_WORDS, CellTable, findCell } from "./cell-table.js";
import { ENTRY_KIND, ENTRY_PORTS, ENTRY_RULE, EntryTable, VERDICT_SHIFT } from "./entry-table.js";
import { MapError, newMapStats } from "./errors.js";
import type { MapStats } from "./errors.js";
import { portBlockCount, portBlockLen } from "./portblocks.js";

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

// Block cell = [identity, packed, smallest ruleRef among its owning entries, owning entries]; packed bits:
// 0-15 block start port, 16-20 prefix length (0..16), 21-28 protocol, 29 direction, 30 deny.
const BLOCK_RULE = 2;
const BLOCK_OWNERS = 3;
// Header cell (one per identity and direction with entries), key [identity, HEADER | direction], in one of
// two forms. Inline (the identity has one entry in this direction, one block): [INLINE | packed block,
// ruleRef], so a lookup needs no second probe. Masks (anything else): [exact-protocol word, any-protocol
// word]; each word: bit L = some block of port prefix length L exists for this identity, direction and
// protocol class (either verdict), DENY_PRESENT = some of them are DENY blocks; the free high bits (18-30
// of the first word, 18-31 of the second) form a 27-bit filter of the blocks (filterBit of protocol,
// length and start), so most lengths that cannot hold the packet's port are not probed at all.
// Identity 0 (any peer) keeps its two mask words per direction in `anyHeader` (no filter).
const HEADER = 1 << 31;
const INLINE = 1 << 31;
const LENGTHS = 0x1ffff;
const DENY_PRESENT = 1 << 17;
/** Block key bits the filter hashes: protocol, length, start (not direction or verdict). */
const FILTER_KEY = 0x1fffffff;
const FILTER_BITS = 27;
const FILTER_LOW_BITS = 13; // filter bits 0-12 live in the first header word, 13-26 in the second
// Reference counts behind the header bits, keyed [identity, group]: group = kind << 8 | direction << 6 |
// class << 5 | length, kind 0 = blocks of that length, kind 1 = DENY blocks of the class (length 0),
// kind 2 = blocks on a filter bit (kind << 8 | direction << 6 | bit).
const COUNT = 2;
const DENY_COUNT = 1 << 8;
const FILTER_COUNT = 2 << 8;

/**
 * Lookup semantics: among entries matching (direction, identity or any, proto or any, port in range),
 * DENY wins over ALLOW. `lastRuleRef` is the ruleRef of the first match in probe order: exact identity
 * before any, then exact protocol before any, then the longest port block; within one block the smallest
 * ruleRef of the entries that share it.
 *
 * Lookup cost: one probe for the peer identity's header, which answers by itself when the identity has a
 * single one-block entry in the direction (inline) and otherwise says which port prefix lengths exist for
 * it per protocol class, filtered by block; then one probe per remaining length (the any-identity lengths
 * are kept in fields), DENY blocks only when a header says there are some. It depends on the variety of
 * port ranges per identity, never on the number of entries; `probes` counts the hash probes.
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

  private readonly blocks = new CellTable();
  private readonly counts = new CellTable();
  private readonly entries = new EntryTable();
  /** Header words of identity 0 (any peer): [ingress exact, ingress any, egress exact, egress any]. */
  private readonly anyHeader = new Int32Array(4);
  private blockKeys = 0;

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries;
  }

  /** Number of entries (port ranges) written by the control plane. */
  get size(): number {
    return this.entries.size;
  }

  /** Number of port-block keys the entries expand to. */
  get blockCount(): number {
    return this.blockKeys;
  }

  /**
   * Capacity hint (control plane): storage for `entries` entries expanding to about `blocks` port-block
   * keys, allocated once instead of grown step by step. Never needed for correctness; bounded by maxEntries.
   */
  reserve(entries: number, blocks = entries): void {
    entries = Math.min(entries, this.maxEntries);
    blocks = Math.min(blocks, this.maxEntries);
    this.entries.reserve(entries);
    this.blocks.reserve(Math.max(blocks, entries)); // one header per (identity, direction), most of them inline
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
    const id = identity | 0;
    const ports = (portLo << 16) | portHi;
    const dirProto = (direction << 8) | proto;
    const rule = ruleRef | 0;
    const entries = this.entries;
    const at = entries.find(id, ports, dirProto);
    if (at >= 0) {
      const oldVerdict = entries.cells[at + ENTRY_KIND]! >>> VERDICT_SHIFT;
      const oldRule = entries.cells[at + ENTRY_RULE]!;
      if (oldVerdict === verdict && oldRule === rule) return 0;
      entries.removeAt(at);
      this.removeBlocks(direction, id, proto, portLo, portHi, oldVerdict, oldRule);
      if (!this.addBlocks(direction, id, proto, portLo, portHi, verdict, rule)) {
        this.addBlocks(direction, id, proto, portLo, portHi, oldVerdict, oldRule);
        entries.add(id, ports, dirProto, oldVerdict, oldRule);
        return MapError.FULL;
      }
    } else {
      if (entries.size >= this.maxEntries) {
        this.stats.full++;
        return MapError.FULL;
      }
      if (!this.addBlocks(direction, id, proto, portLo, portHi, verdict, rule)) return MapError.FULL;
      this.stats.inserts++;
    }
    entries.add(id, ports, dirProto, verdict, rule);
    return 0;
  }

  /** Removes the entry with exactly this key; false when absent. */
  delete(direction: number, identity: number, proto: number, portLo: number, portHi: number): boolean {
    if (!validKey(direction, identity, proto, portLo, portHi)) return false;
    const id = identity | 0;
    const entries = this.entries;
    const at = entries.find(id, (portLo << 16) | portHi, (direction << 8) | proto);
    if (at < 0) return false;
    const verdict = entries.cells[at + ENTRY_KIND]! >>> VERDICT_SHIFT;
    const rule = entries.cells[at + ENTRY_RULE]!;
    entries.removeAt(at);
    this.removeBlocks(direction, id, proto, portLo, portHi, verdict, rule);
    this.stats.deletes++;
    return true;
  }

  clear(): void {
    this.entries.clear();
    this.blocks.clear();
    this.counts.clear();
    this.anyHeader.fill(0);
    this.blockKeys = 0;
  }

  /** Verdict for a packet (proto: IP protocol byte, port: 16-bit destination port); DENY wins; sets lastRuleRef. */
  lookup(direction: number, identity: number, proto: number, port: number): number {
    const stats = this.stats;
    stats.lookups++;
    const dir = direction & 1;
    const id = identity | 0;
    proto &= 0xff;
    port &= 0xffff;
    const cells = this.blocks.cells;
    const mask = this.blocks.wordMask;
    let idExact = 0;
    let idAny = 0;
    let probes = 0;
    let filter0 = 0; // the identity's header words as they are (idExact is cleared for protocol 0)
    let filter1 = 0;
    let inline = -1; // header offset when the identity's one block (inline) contains the packet
    if (id !== 0) {
      probes = 1;
      const hdr = findCell(cells, mask, id, HEADER | dir);
      if (hdr >= 0) {
        const w = cells[hdr + 2]!;
        if (w >= 0) {
          idExact = filter0 = w;
          idAny = filter1 = cells[hdr + 3]!;
        } else {
          const blockProto = (w >>> 21) & 0xff;
          const len = (w >>> 16) & 31;
          if ((blockProto === 0 || blockProto === proto) && (port & ((0xffff << (16 - len)) & 0xffff)) === (w & 0xffff)) inline = hdr;
        }
      }
    }
    let anyExact = this.anyHeader[dir * 2]!;
    const anyAny = this.anyHeader[dir * 2 + 1]!;
    // An exact class needs a non-zero packet value; 0 in the packet only matches wildcard entries.
    if (proto === 0) {
      idExact = 0;
      anyExact = 0;
    }
    if (inline >= 0 && (cells[inline + 2]! & (1 << 30)) !== 0) {
      // The identity's own DENY block: identity classes come first in probe order.
      this.probes += probes;
      stats.hits++;
      this.lastRuleRef = cells[inline + 3]! >>> 0;
      return PolicyVerdict.DENY;
    }
    let verdict: number = PolicyVerdict.DENY;
    let at = -1;
    probed = 0;
    if (((idExact | idAny | anyExact | anyAny) & DENY_PRESENT) !== 0) {
      const deny = (1 << 30) | (dir << 29);
      if ((idExact & DENY_PRESENT) !== 0) at = probeLengths(cells, mask, id, deny | (proto << 21), port, idExact, filter0, filter1);
      if (at < 0 && (idAny & DENY_PRESENT) !== 0) at = probeLengths(cells, mask, id, deny, port, idAny, filter0, filter1);
      if (at < 0 && (anyExact & DENY_PRESENT) !== 0) at = probeLengths(cells, mask, 0, deny | (proto << 21), port, anyExact, -1, -1);
      if (at < 0 && (anyAny & DENY_PRESENT) !== 0) at = probeLengths(cells, mask, 0, deny, port, anyAny, -1, -1);
    }
    if (at < 0 && inline >= 0) {
      this.probes += probes + probed;
      stats.hits++;
      this.lastRuleRef = cells[inline + 3]! >>> 0;
      return PolicyVerdict.ALLOW;
    }
    if (at < 0) {
      verdict = PolicyVerdict.ALLOW;
      const allow = dir << 29;
      at = probeLengths(cells, mask, id, allow | (proto << 21), port, idExact, filter0, filter1);
      if (at < 0) at = probeLengths(cells, mask, id, allow, port, idAny, filter0, filter1);
      if (at < 0) at = probeLengths(cells, mask, 0, allow | (proto << 21), port, anyExact, -1, -1);
      if (at < 0) at = probeLengths(cells, mask, 0, allow, port, anyAny, -1, -1);
    }
    this.probes += probes + probed;
    if (at < 0) {
      stats.misses++;
      this.lastRuleRef = 0;
      return PolicyVerdict.MISS;
    }
    stats.hits++;
    this.lastRuleRef = cells[at + BLOCK_RULE]! >>> 0;
    return verdict;
  }

  /** All entries, in storage order (allocates; for dumps, explanations and tests). */
  dump(): PolicyEntry[] {
    const out: PolicyEntry[] = [];
    const entries = this.entries;
    for (let at = entries.next(-CELL_WORDS); at >= 0; at = entries.next(at)) {
      const cells = entries.cells;
      const kind = cells[at + ENTRY_KIND]!;
      const ports = cells[at + ENTRY_PORTS]!;
      out.push({
        direction: ((kind >>> 8) & 1) as Direction,
        identity: cells[at]! >>> 0,
        proto: kind & 0xff,
        portLo: ports >>> 16,
        portHi: ports & 0xffff,
        verdict: (kind >>> VERDICT_SHIFT) as PolicyVerdict,
        ruleRef: cells[at + ENTRY_RULE]! >>> 0,
      });
    }
    return out;
  }

  /** Adds one owner to every block of the range; false (nothing changed, stats.full counted) when blocks would overflow. */
  private addBlocks(direction: number, id: number, proto: number, lo: number, hi: number, verdict: number, rule: number): boolean {
    const deny = verdict === PolicyVerdict.DENY ? 1 : 0;
    const base = (deny << 30) | (direction << 29) | (proto << 21);
    const blocks = this.blocks;
    const single = portBlockCount(lo, hi) === 1;
    if (this.blockKeys + (single ? 1 : portBlockCount(lo, hi)) > this.maxEntries) {
      // Near capacity: count only the blocks that do not exist yet (an inline block exists too).
      const hdr = id === 0 ? -1 : blocks.find(id, HEADER | direction);
      const inlined = hdr >= 0 && blocks.cells[hdr + 2]! < 0 ? blocks.cells[hdr + 2]! & ~INLINE : -1;
      let needed = 0;
      for (let start = lo; start <= hi; ) {
        const len = portBlockLen(start, hi);
        const key = base | (len << 16) | start;
        if (key !== inlined && blocks.find(id, key) < 0) needed++;
        start += 0x10000 >>> len;
      }
      if (this.blockKeys + needed > this.maxEntries) {
        this.stats.full++;
        return false;
      }
    }
    if (id !== 0) {
      const hdr = blocks.insert(id, HEADER | direction);
      if (blocks.created && single) {
        // The identity's first entry in this direction, one block: keep it inline in the header.
        blocks.cells[hdr + 2] = INLINE | base | (portBlockLen(lo, hi) << 16) | lo;
        blocks.cells[hdr + 3] = rule;
        this.blockKeys++;
        return true;
      }
      if (blocks.cells[hdr + 2]! < 0) this.spill(id, direction, hdr);
    }
    const cls = proto === 0 ? 1 : 0;
    for (let start = lo; start <= hi; ) {
      const len = portBlockLen(start, hi);
      const at = blocks.insert(id, base | (len << 16) | start);
      const cells = blocks.cells;
      if (blocks.created) {
        cells[at + BLOCK_RULE] = rule;
        cells[at + BLOCK_OWNERS] = 1;
        this.blockKeys++;
        this.countBlock(id, direction, cls, len, deny, base | (len << 16) | start, 1);
      } else {
        cells[at + BLOCK_OWNERS]!++;
        if (rule >>> 0 < cells[at + BLOCK_RULE]! >>> 0) cells[at + BLOCK_RULE] = rule;
      }
      start += 0x10000 >>> len;
    }
    return true;
  }

  /** Turns an inline header (at offset hdr) into the mask form, its block into a block key of its own. */
  private spill(id: number, direction: number, hdr: number): void {
    const blocks = this.blocks;
    const packed = blocks.cells[hdr + 2]! & ~INLINE;
    const rule = blocks.cells[hdr + 3]!;
    blocks.cells[hdr + 2] = 0;
    blocks.cells[hdr + 3] = 0;
    const at = blocks.insert(id, packed);
    blocks.cells[at + BLOCK_RULE] = rule;
    blocks.cells[at + BLOCK_OWNERS] = 1;
    const cls = ((packed >>> 21) & 0xff) === 0 ? 1 : 0;
    this.countBlock(id, direction, cls, (packed >>> 16) & 31, (packed >>> 30) & 1, packed, 1);
  }

  /** Drops one owner from every block of the range (the entry itself is already gone from `entries`). */
  private removeBlocks(direction: number, id: number, proto: number, lo: number, hi: number, verdict: number, rule: number): void {
    const deny = verdict === PolicyVerdict.DENY ? 1 : 0;
    const base = (deny << 30) | (direction << 29) | (proto << 21);
    const blocks = this.blocks;
    if (id !== 0) {
      const hdr = blocks.find(id, HEADER | direction);
      if (hdr >= 0 && blocks.cells[hdr + 2]! < 0) {
        // Inline: the identity's only entry in this direction is the one going away.
        blocks.removeAt(hdr);
        this.blockKeys--;
        return;
      }
    }
    const cls = proto === 0 ? 1 : 0;
    for (let start = lo; start <= hi; ) {
      const len = portBlockLen(start, hi);
      const at = blocks.find(id, base | (len << 16) | start);
      start += 0x10000 >>> len;
      if (at < 0) continue; // cannot happen while entries and blocks agree
      const cells = blocks.cells;
      if (--cells[at + BLOCK_OWNERS]! === 0) {
        blocks.removeAt(at);
        this.blockKeys--;
        this.countBlock(id, direction, cls, len, deny, base | (len << 16) | (start - (0x10000 >>> len)), -1);
      } else if (cells[at + BLOCK_RULE] === rule) {
        cells[at + BLOCK_RULE] = this.smallestOwnerRule(direction, id, proto, verdict, start - (0x10000 >>> len), len);
      }
    }
  }

  /** Keeps the header bits of (identity, direction) in step with block key `key` added (+1) or removed (-1). */
  private countBlock(id: number, direction: number, cls: number, len: number, deny: number, key: number, delta: 1 | -1): void {
    const group = (direction << 6) | (cls << 5);
    let bits = this.bumpCount(id, group | len, delta) ? 1 << len : 0;
    if (deny === 1 && this.bumpCount(id, DENY_COUNT | group, delta)) bits |= DENY_PRESENT;
    if (id === 0) {
      this.anyHeader[direction * 2 + cls]! ^= bits;
      return;
    }
    const f = filterBit(key & FILTER_KEY);
    const filterFlip = this.bumpCount(id, FILTER_COUNT | (direction << 6) | f, delta);
    if (bits === 0 && !filterFlip) return;
    const blocks = this.blocks;
    const at = blocks.insert(id, HEADER | direction);
    const cells = blocks.cells;
    cells[at + 2 + cls]! ^= bits;
    if (filterFlip) {
      if (f < FILTER_LOW_BITS) cells[at + 2]! ^= 1 << (18 + f);
      else cells[at + 3]! ^= 1 << (18 - FILTER_LOW_BITS + f);
    }
    if (cells[at + 2] === 0 && cells[at + 3] === 0) blocks.removeAt(at);
  }

  /** Adds delta to a reference count; true when it went from 0 to 1 or from 1 to 0. */
  private bumpCount(id: number, group: number, delta: 1 | -1): boolean {
    const counts = this.counts;
    const at = delta === 1 ? counts.insert(id, group) : counts.find(id, group);
    if (at < 0) return false; // cannot happen while blocks and counts agree
    const cells = counts.cells;
    const n = (cells[at + COUNT]! += delta);
    if (n === 0) counts.removeAt(at);
    return n === 0 || (n === 1 && delta === 1);
  }

  /** Smallest ruleRef among remaining entries whose block decomposition contains (start, len). */
  private smallestOwnerRule(direction: number, id: number, proto: number, verdict: number, start: number, len: number): number {
    const entries = this.entries;
    const cells = entries.cells;
    const kind = (direction << 8) | proto | (verdict << VERDICT_SHIFT);
    const end = start + (0x10000 >>> len) - 1;
    const parentStart = len === 0 ? 0 : start & ((0xffff << (17 - len)) & 0xffff);
    const parentEnd = len === 0 ? 0 : parentStart + (0x10000 >>> (len - 1)) - 1;
    let best = 0xffffffff;
    for (let at = entries.next(-CELL_WORDS); at >= 0; at = entries.next(at)) {
      if (cells[at] !== id || cells[at + ENTRY_KIND] !== kind) continue;
      const lo = cells[at + ENTRY_PORTS]! >>> 16;
      const hi = cells[at + ENTRY_PORTS]! & 0xffff;
      const containsBlock = lo <= start && end <= hi;
      const containsParent = len > 0 && lo <= parentStart && parentEnd <= hi;
      const rule = cells[at + ENTRY_RULE]! >>> 0;
      if (containsBlock && !containsParent && rule < best) best = rule;
    }
    return best | 0;
  }
}

/** Probes counted by probeLengths since the last reset (module state: lookups run to completion). */
let probed = 0;

/**
 * Probes the blocks containing `port` for each prefix length in `lengths` (bits 0-16), longest first,
 * skipping those the header filter (words `f0`, `f1`; -1, -1 = no filter) rules out.
 */
function probeLengths(cells: Int32Array, mask: number, id: number, base: number, port: number, lengths: number, f0: number, f1: number): number {
  let m = lengths & LENGTHS;
  while (m !== 0) {
    const len = 31 - Math.clz32(m);
    m ^= 1 << len;
    const key = base | (len << 16) | (port & ((0xffff << (16 - len)) & 0xffff));
    const f = filterBit(key & FILTER_KEY);
    if (((f < FILTER_LOW_BITS ? f0 >>> (18 + f) : f1 >>> (18 - FILTER_LOW_BITS + f)) & 1) === 0) continue;
    probed++;
    const at = findCell(cells, mask, id, key);
    if (at >= 0) return at;
  }
  return -1;
}

/** Filter bit (0..26) of a block: protocol, length and start bits of its key, multiply-shift hashed. */
function filterBit(key: number): number {
  const h = Math.imul(key ^ (key >>> 16), 0x45d9f3b);
  return ((h >>> 16) * FILTER_BITS) >>> 16;
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
