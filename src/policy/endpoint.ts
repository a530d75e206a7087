// One local endpoint (pod) as the compiler keeps it: its policy map plus reference counts of the
// contributions behind each map entry, so overlapping rules can come and go independently and an
// entry leaves the map only when its last contributor does. During a full compile the map writes
// are deferred and made once at the end, into a map sized for them.
import { PolicyMap, PolicyVerdict } from "../../datapath/maps/policy.js";
import { portBlockCount } from "../../datapath/maps/portblocks.js";
import type { PodInfo } from "./types.js";

/** Statistics the compiler exposes so tests can see what an update touched. */
export type EndpointCounters = { upserts: number; deletes: number; mapErrors: number };

/** Contribution records: ruleRef * COUNT_SPAN + count for one contributing rule (the usual case,
 *  kept a small integer), or flat [ruleRef, count, ruleRef, count, ...] otherwise. */
type Contributions = number | number[];
const COUNT_SPAN = 1024;
const MAX_PACKED_RULE_REF = 1 << 19;
const LOCAL_FLAG = 1 << 24;

const packed = (ruleRef: number, count: number): Contributions =>
  ruleRef < MAX_PACKED_RULE_REF && count < COUNT_SPAN ? ruleRef * COUNT_SPAN + count : [ruleRef, count];

/** Small numbers for the port ranges in use, so that entry keys stay small integers. */
export class PortRangeIds {
  private readonly ids = new Map<number, number>();
  private readonly ranges: number[] = [];
  idOf(lo: number, hi: number): number {
    const k = lo * 65536 + hi;
    let id = this.ids.get(k);
    if (id === undefined) {
      this.ids.set(k, (id = this.ids.size));
      this.ranges.push(k);
    }
    return id;
  }
  /** The range of an id, as lo * 65536 + hi. */
  rangeOf(id: number): number {
    return this.ranges[id]!;
  }
}

const MAX_RANGE_IDS = 1024;

/** A small-integer key for the usual entries (31-bit: identity code, direction, protocol, range id);
 *  a string for anything else. */
function entryKey(ranges: PortRangeIds, direction: number, identity: number, proto: number, lo: number, hi: number): number | string {
  const pc = proto === 0 ? 0 : proto === 6 ? 1 : proto === 17 ? 2 : proto === 132 ? 3 : -1;
  const local = identity - LOCAL_FLAG;
  const code = identity <= 0xffff ? identity : local > 0 && local <= 0xffff ? 0x10000 + local : -1;
  const range = ranges.idOf(lo, hi);
  if (pc < 0 || code < 0 || range >= MAX_RANGE_IDS) return `${direction}:${identity}:${proto}:${lo}:${hi}`;
  return ((code * 2 + direction) * 4 + pc) * MAX_RANGE_IDS + range;
}

const PROTO_OF_CODE = [0, 6, 17, 132] as const;

/** The entry an entryKey names: [direction, identity, proto, lo, hi] written into `out`. */
function decodeEntryKey(ranges: PortRangeIds, key: number | string, out: number[]): void {
  if (typeof key === "string") {
    const f = key.split(":").map(Number);
    for (let i = 0; i < 5; i++) out[i] = f[i]!;
    return;
  }
  const range = ranges.rangeOf(key % MAX_RANGE_IDS);
  let rest = Math.floor(key / MAX_RANGE_IDS);
  const pc = rest % 4;
  rest = Math.floor(rest / 4);
  const code = Math.floor(rest / 2);
  out[0] = rest % 2;
  out[1] = code <= 0xffff ? code : LOCAL_FLAG + (code - 0x10000);
  out[2] = PROTO_OF_CODE[pc]!;
  out[3] = Math.floor(range / 65536);
  out[4] = range % 65536;
}

export class EndpointState {
  readonly map: PolicyMap;
  private readonly contributions = new Map<number | string, Contributions>();
  /** True while map writes are deferred (see defer/flush). */
  private deferred = false;

  constructor(
    public pod: PodInfo,
    public identity: number,
    maxEntries: number,
    private readonly counters: EndpointCounters,
    private readonly touched: (ep: EndpointState) => void,
    private readonly ranges: PortRangeIds,
  ) {
    this.map = new PolicyMap(maxEntries);
  }

  get key(): string {
    return this.pod.key;
  }

  /** Stops writing the map: contributions are still counted; flush() writes the result. */
  defer(): void {
    this.deferred = true;
  }

  /** Writes every entry that deferred changes left, into a map reserved for them once. */
  flush(): void {
    if (!this.deferred) return;
    this.deferred = false;
    const e = [0, 0, 0, 0, 0];
    let blocks = 0;
    for (const key of this.contributions.keys()) {
      decodeEntryKey(this.ranges, key, e);
      blocks += portBlockCount(e[3]!, e[4]!);
    }
    this.map.reserve(this.contributions.size, blocks);
    for (const [key, c] of this.contributions) {
      decodeEntryKey(this.ranges, key, e);
      this.write(e[0]!, e[1]!, e[2]!, e[3]!, e[4]!, typeof c === "number" ? Math.floor(c / COUNT_SPAN) : c[0]!);
    }
  }

  /** Adds one contribution of `ruleRef` to the ALLOW entry (direction, identity, proto, [lo, hi]). */
  add(direction: number, identity: number, proto: number, lo: number, hi: number, ruleRef: number): void {
    const key = entryKey(this.ranges, direction, identity, proto, lo, hi);
    const c = this.contributions.get(key);
    if (c === undefined) {
      this.contributions.set(key, packed(ruleRef, 1));
      this.write(direction, identity, proto, lo, hi, ruleRef);
    } else if (typeof c === "number") {
      const ref = Math.floor(c / COUNT_SPAN);
      const count = c % COUNT_SPAN;
      this.contributions.set(key, ref === ruleRef ? packed(ref, count + 1) : [ref, count, ruleRef, 1]);
    } else {
      for (let i = 0; i < c.length; i += 2) {
        if (c[i] === ruleRef) {
          c[i + 1]!++;
          return;
        }
      }
      c.push(ruleRef, 1);
    }
  }

  /** Removes one contribution; the entry leaves the map with its last contribution, and when the
   *  contributor whose ruleRef the map holds leaves, another contributor's ruleRef replaces it. */
  remove(direction: number, identity: number, proto: number, lo: number, hi: number, ruleRef: number): void {
    const key = entryKey(this.ranges, direction, identity, proto, lo, hi);
    const c = this.contributions.get(key);
    if (c === undefined) return;
    if (typeof c === "number") {
      if (Math.floor(c / COUNT_SPAN) !== ruleRef) return;
      if (c % COUNT_SPAN > 1) this.contributions.set(key, c - 1);
      else this.drop(key, direction, identity, proto, lo, hi);
      return;
    }
    const i = c.findIndex((v, j) => j % 2 === 0 && v === ruleRef);
    if (i < 0 || --c[i + 1]! > 0) return;
    const installed = i === 0;
    c.splice(i, 2);
    if (c.length === 0) return this.drop(key, direction, identity, proto, lo, hi);
    const next = c[0]!;
    this.contributions.set(key, c.length === 2 ? packed(next, c[1]!) : c);
    if (installed) this.write(direction, identity, proto, lo, hi, next);
  }

  private drop(key: number | string, direction: number, identity: number, proto: number, lo: number, hi: number): void {
    this.contributions.delete(key);
    if (this.deferred) return;
    this.touched(this);
    if (this.map.delete(direction, identity, proto, lo, hi)) this.counters.deletes++;
  }

  private write(direction: number, identity: number, proto: number, lo: number, hi: number, ruleRef: number): void {
    if (this.deferred) return;
    this.touched(this);
    const rc = this.map.upsert(direction, identity, proto, lo, hi, PolicyVerdict.ALLOW, ruleRef);
    if (rc === 0) this.counters.upserts++;
    else this.counters.mapErrors++;
  }
}
