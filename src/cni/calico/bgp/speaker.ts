// A node's BGP speaker as calico-node runs BIRD: AS 64512, router id = the node address, one session
// per other node (full mesh; the node with the higher address is passive, as Calico's template makes
// the mesh unidirectional), the node's IPAM blocks originated, best paths handed to a RouteSink, and a
// log of every message sent and received with its simulated time (the evidence that a route exists
// because an UPDATE arrived).
import type { Simulator } from "../../../engine/simulator.js";
import type { Ipv4Route } from "./message.js";
import { Rib, type RouteSink } from "./rib.js";
import { BgpSession, SessionState } from "./session.js";
import { BgpTimers } from "./timers.js";
import type { BgpConnection, BgpTransport } from "./transport.js";

/** Calico's default AS number for the node mesh. */
export const CALICO_DEFAULT_AS = 64512;

export interface BgpSpeakerConfig {
  readonly nodeName: string;
  readonly localAs: number;
  readonly routerId: number;
  /** Source address of sessions and NEXT_HOP of originated routes. */
  readonly localAddress: number;
  /** Seconds (BIRD: 240). */
  readonly holdTime: number;
  /** Delay before the first active open (BIRD's connect delay time, 5 s). */
  readonly connectDelayNs: number;
  /** Delay before reconnecting after a failure (BIRD's connect retry time, 120 s). */
  readonly connectRetryNs: number;
}

export const BIRD_DEFAULTS = { holdTime: 240, connectDelayNs: 5_000_000_000, connectRetryNs: 120_000_000_000 } as const;

export interface BgpLogEntry {
  readonly time: number;
  readonly node: string;
  readonly peer: number;
  /** tx / rx a message, or a session event. */
  readonly dir: "tx" | "rx" | "event";
  readonly type: string;
  readonly detail: string;
}

export class BgpSpeaker {
  readonly rib: Rib;
  readonly log: BgpLogEntry[] = [];
  private readonly sessions = new Map<number, BgpSession>();
  private started = false;

  constructor(
    readonly transport: BgpTransport,
    readonly config: BgpSpeakerConfig,
    readonly timers: BgpTimers,
    sink: RouteSink,
  ) {
    this.rib = new Rib(sink);
  }

  static create(sim: Simulator, transport: BgpTransport, config: Partial<BgpSpeakerConfig> & Pick<BgpSpeakerConfig, "nodeName" | "routerId" | "localAddress">, sink: RouteSink, timers = new BgpTimers(sim)): BgpSpeaker {
    return new BgpSpeaker(transport, { localAs: CALICO_DEFAULT_AS, ...BIRD_DEFAULTS, ...config }, timers, sink);
  }

  /** Adds a mesh peer; passive when our address is the higher one (the peer connects to us). */
  addPeer(address: number): BgpSession {
    const existing = this.sessions.get(address >>> 0);
    if (existing !== undefined) return existing;
    const s = new BgpSession(this, address >>> 0, this.config.localAddress >>> 0 > address >>> 0);
    this.sessions.set(address >>> 0, s);
    if (this.started) s.start(this.config.connectDelayNs);
    return s;
  }

  removePeer(address: number): void {
    const s = this.sessions.get(address >>> 0);
    if (s === undefined) return;
    s.stop();
    this.sessions.delete(address >>> 0);
  }

  session(address: number): BgpSession | undefined {
    return this.sessions.get(address >>> 0);
  }

  peers(): BgpSession[] {
    return [...this.sessions.values()];
  }

  /** Starts listening on port 179 and every session. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.transport.listen((remote, conn) => this.incoming(remote, conn));
    for (const s of this.sessions.values()) s.start(this.config.connectDelayNs);
  }

  stop(): void {
    for (const s of this.sessions.values()) s.stop();
  }

  /** True when every session is Established. */
  get converged(): boolean {
    for (const s of this.sessions.values()) if (s.state !== SessionState.ESTABLISHED) return false;
    return true;
  }

  /** Originates a prefix (a block affine to this node) and announces it to established peers. */
  originate(route: Ipv4Route): void {
    if (!this.rib.originate(route)) return;
    for (const s of this.sessions.values()) s.announce([route], []);
  }

  withdraw(route: Ipv4Route): void {
    if (!this.rib.stopOriginating(route)) return;
    for (const s of this.sessions.values()) s.announce([], [route]);
  }

  record(dir: BgpLogEntry["dir"], peer: number, type: string, detail: string): void {
    this.log.push({ time: this.timers.sim.now, node: this.config.nodeName, peer, dir, type, detail });
  }

  private incoming(remote: number, conn: BgpConnection): BgpSession | null {
    const s = this.sessions.get(remote >>> 0);
    if (s === undefined || !s.accept(conn)) return null;
    return s;
  }
}
