// The routing information bases of one BGP speaker (RFC 4271 3.2): Adj-RIB-In per peer, the
// Loc-RIB of best paths chosen by the decision process (9.1: highest LOCAL_PREF, shortest AS_PATH,
// lowest ORIGIN, then lowest peer BGP identifier and address), and the locally originated prefixes.
// Changes of the best path are handed to a RouteSink (the kernel protocol that installs routes).
import type { Ipv4Route, PathAttributes } from "./message.js";

export interface RibPath {
  readonly prefix: number;
  readonly length: number;
  /** Peer address the path came from. */
  readonly peer: number;
  readonly peerId: number;
  readonly attributes: PathAttributes;
}

/** Receives best-path changes (BIRD's kernel protocol exporting to the routing table). */
export interface RouteSink {
  install(prefix: number, length: number, nextHop: number, via: RibPath): void;
  remove(prefix: number, length: number): void;
}

const keyOf = (prefix: number, length: number): string => `${prefix >>> 0}/${length}`;

const LOCAL_PREF_DEFAULT = 100;

/** True when a is preferred over b (RFC 4271 9.1.2.2, as an iBGP full mesh needs it). */
export function better(a: RibPath, b: RibPath): boolean {
  const pa = a.attributes.localPref ?? LOCAL_PREF_DEFAULT;
  const pb = b.attributes.localPref ?? LOCAL_PREF_DEFAULT;
  if (pa !== pb) return pa > pb;
  if (a.attributes.asPath.length !== b.attributes.asPath.length) return a.attributes.asPath.length < b.attributes.asPath.length;
  if (a.attributes.origin !== b.attributes.origin) return a.attributes.origin < b.attributes.origin;
  if (a.peerId !== b.peerId) return a.peerId >>> 0 < b.peerId >>> 0;
  return a.peer >>> 0 < b.peer >>> 0;
}

export class Rib {
  /** peer -> prefix key -> path */
  private readonly adjIn = new Map<number, Map<string, RibPath>>();
  private readonly best = new Map<string, RibPath>();
  private readonly local = new Map<string, Ipv4Route>();

  constructor(private readonly sink: RouteSink) {}

  /** Prefixes this speaker originates (its blocks), in announcement order. */
  localRoutes(): Ipv4Route[] {
    return [...this.local.values()];
  }

  originate(route: Ipv4Route): boolean {
    const k = keyOf(route.prefix, route.length);
    if (this.local.has(k)) return false;
    this.local.set(k, route);
    // A locally originated prefix wins over learned ones: the learned best path leaves the kernel.
    if (this.best.has(k)) {
      this.best.delete(k);
      this.sink.remove(route.prefix, route.length);
    }
    return true;
  }

  stopOriginating(route: Ipv4Route): boolean {
    const k = keyOf(route.prefix, route.length);
    if (!this.local.delete(k)) return false;
    this.decide(route.prefix, route.length);
    return true;
  }

  /** An UPDATE's NLRI from a peer (replacing that peer's earlier path for each prefix). */
  learn(peer: number, peerId: number, attributes: PathAttributes, nlri: readonly Ipv4Route[]): void {
    let table = this.adjIn.get(peer);
    if (table === undefined) this.adjIn.set(peer, (table = new Map()));
    for (const r of nlri) {
      table.set(keyOf(r.prefix, r.length), { prefix: r.prefix, length: r.length, peer, peerId, attributes });
      this.decide(r.prefix, r.length);
    }
  }

  withdraw(peer: number, routes: readonly Ipv4Route[]): void {
    const table = this.adjIn.get(peer);
    if (table === undefined) return;
    for (const r of routes) if (table.delete(keyOf(r.prefix, r.length))) this.decide(r.prefix, r.length);
  }

  /** The session with a peer went down: every path it sent is gone. */
  dropPeer(peer: number): void {
    const table = this.adjIn.get(peer);
    if (table === undefined) return;
    this.adjIn.delete(peer);
    for (const p of table.values()) this.decide(p.prefix, p.length);
  }

  bestPath(prefix: number, length: number): RibPath | undefined {
    return this.best.get(keyOf(prefix, length));
  }

  bestPaths(): RibPath[] {
    return [...this.best.values()];
  }

  private decide(prefix: number, length: number): void {
    const k = keyOf(prefix, length);
    if (this.local.has(k)) return;
    let winner: RibPath | undefined;
    for (const table of this.adjIn.values()) {
      const p = table.get(k);
      if (p !== undefined && (winner === undefined || better(p, winner))) winner = p;
    }
    const before = this.best.get(k);
    if (winner === before) return;
    if (winner === undefined) {
      this.best.delete(k);
      this.sink.remove(prefix, length);
      return;
    }
    this.best.set(k, winner);
    if (before === undefined || before.attributes.nextHop !== winner.attributes.nextHop) this.sink.install(prefix, length, winner.attributes.nextHop, winner);
  }
}
