// One local endpoint (pod) as the compiler keeps it: its policy map plus reference counts of the
// contributions behind each map entry, so overlapping rules can come and go independently and an
// entry leaves the map only when its last contributor does.
import { PolicyMap, PolicyVerdict } from "../../datapath/maps/policy.js";
import type { PodInfo } from "./types.js";

/** Statistics the compiler exposes so tests can see what an update touched. */
export type EndpointCounters = { upserts: number; deletes: number; mapErrors: number };

export class EndpointState {
  readonly map: PolicyMap;
  /** Per entry key: flat [ruleRef, count, ruleRef, count, ...] of the contributions. */
  private readonly contributions = new Map<string, number[]>();

  constructor(
    public pod: PodInfo,
    public identity: number,
    maxEntries: number,
    private readonly counters: EndpointCounters,
    private readonly touched: (ep: EndpointState) => void,
  ) {
    this.map = new PolicyMap(maxEntries);
  }

  get key(): string {
    return this.pod.key;
  }

  /** Adds one contribution of `ruleRef` to the ALLOW entry (direction, identity, proto, [lo, hi]). */
  add(direction: number, identity: number, proto: number, lo: number, hi: number, ruleRef: number): void {
    const key = `${direction}:${identity}:${proto}:${lo}:${hi}`;
    const list = this.contributions.get(key);
    if (list === undefined) {
      this.contributions.set(key, [ruleRef, 1]);
      this.write(direction, identity, proto, lo, hi, ruleRef);
      return;
    }
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] === ruleRef) {
        list[i + 1]!++;
        return;
      }
    }
    list.push(ruleRef, 1);
  }

  /** Removes one contribution; the entry leaves the map with its last contribution. */
  remove(direction: number, identity: number, proto: number, lo: number, hi: number, ruleRef: number): void {
    const key = `${direction}:${identity}:${proto}:${lo}:${hi}`;
    const list = this.contributions.get(key);
    if (list === undefined) return;
    const i = list.findIndex((v, j) => j % 2 === 0 && v === ruleRef);
    if (i < 0) return;
    if (--list[i + 1]! > 0) return;
    const installed = list[0] === ruleRef;
    list.splice(i, 2);
    if (list.length === 0) {
      this.contributions.delete(key);
      this.touched(this);
      if (this.map.delete(direction, identity, proto, lo, hi)) this.counters.deletes++;
    } else if (installed) {
      this.write(direction, identity, proto, lo, hi, list[0]!);
    }
  }

  /** Number of distinct map entries the compiler wants for this endpoint. */
  get entryCount(): number {
    return this.contributions.size;
  }

  private write(direction: number, identity: number, proto: number, lo: number, hi: number, ruleRef: number): void {
    this.touched(this);
    const rc = this.map.upsert(direction, identity, proto, lo, hi, PolicyVerdict.ALLOW, ruleRef);
    if (rc === 0) this.counters.upserts++;
    else this.counters.mapErrors++;
  }
}
