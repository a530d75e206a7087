// The order in which the scheduler walks nodes (internal/cache nodeTree): nodes grouped by zone in
// the order they were added, listed round-robin across zones so that consecutive nodes differ in zone.
import type { Labels } from "../k8s/selector.js";

/** utilnode.GetZoneKey: region and zone (beta labels first), "" when the node has neither. */
export function zoneKey(labels: Labels): string {
  const zone = labels["failure-domain.beta.kubernetes.io/zone"] ?? labels["topology.kubernetes.io/zone"] ?? "";
  const region = labels["failure-domain.beta.kubernetes.io/region"] ?? labels["topology.kubernetes.io/region"] ?? "";
  return region === "" && zone === "" ? "" : `${region}:\u0000:${zone}`;
}

export class NodeTree {
  private readonly zones: string[] = [];
  private readonly tree = new Map<string, string[]>();
  private readonly zoneOf = new Map<string, string>();
  private cached: string[] | null = null;

  get size(): number {
    return this.zoneOf.size;
  }

  add(name: string, labels: Labels): void {
    if (this.zoneOf.has(name)) return;
    const zone = zoneKey(labels);
    let list = this.tree.get(zone);
    if (list === undefined) {
      list = [];
      this.tree.set(zone, list);
      this.zones.push(zone);
    }
    list.push(name);
    this.zoneOf.set(name, zone);
    this.cached = null;
  }

  remove(name: string): void {
    const zone = this.zoneOf.get(name);
    if (zone === undefined) return;
    const list = this.tree.get(zone)!;
    list.splice(list.indexOf(name), 1);
    if (list.length === 0) {
      this.tree.delete(zone);
      this.zones.splice(this.zones.indexOf(zone), 1);
    }
    this.zoneOf.delete(name);
    this.cached = null;
  }

  /** A node whose zone labels changed moves to the end of its new zone. */
  update(name: string, labels: Labels): void {
    if (this.zoneOf.get(name) === zoneKey(labels)) return;
    this.remove(name);
    this.add(name, labels);
  }

  /** Node names, round-robin over zones. */
  list(): readonly string[] {
    if (this.cached !== null) return this.cached;
    const out: string[] = [];
    for (let i = 0; out.length < this.zoneOf.size; i++) {
      for (const zone of this.zones) {
        const name = this.tree.get(zone)![i];
        if (name !== undefined) out.push(name);
      }
    }
    this.cached = out;
    return out;
  }
}
