// One BGP session (RFC 4271 section 8, as BIRD runs a Calico mesh peer): Idle -> Connect (active
// open after the connect delay) or Active (passive: the peer connects to us) -> OpenSent ->
// OpenConfirm -> Established, hold time negotiated to the smaller of both, KEEPALIVE every third of
// it, the full table sent once established, UPDATEs applied to the RIB, NOTIFICATION on any error
// followed by a return to Idle and a retry after the connect retry time.
import { formatIPv4 } from "../../../util/ip.js";
import {
  AS_TRANS,
  BgpError,
  BgpType,
  decodeMessage,
  encodeKeepalive,
  encodeNotification,
  encodeOpen,
  encodeUpdate,
  fourOctetAsOf,
  HeaderSub,
  OpenSub,
  Origin,
  standardCapabilities,
  type BgpMessage,
  type BgpUpdate,
  type Ipv4Route,
} from "./message.js";
import { BgpFramer, type BgpConnection, type BgpConnectionEvents } from "./transport.js";
import type { BgpSpeaker } from "./speaker.js";

export const SessionState = { IDLE: "Idle", CONNECT: "Connect", ACTIVE: "Active", OPEN_SENT: "OpenSent", OPEN_CONFIRM: "OpenConfirm", ESTABLISHED: "Established" } as const;
export type SessionState = (typeof SessionState)[keyof typeof SessionState];

const NS = 1_000_000_000;
/** Cease subcode 6: other configuration change; 2: administrative shutdown. */
const CEASE_SHUTDOWN = 2;

export class BgpSession implements BgpConnectionEvents {
  state: SessionState = SessionState.IDLE;
  /** Peer's BGP identifier once its OPEN arrived. */
  peerId = 0;
  holdTime = 0;
  /** Simulated time the session last reached Established (-1 never). */
  establishedAt = -1;
  private conn: BgpConnection | null = null;
  private framer = new BgpFramer();
  private fourOctet = false;
  private connectTimer = 0;
  private holdTimer = 0;
  private keepaliveTimer = 0;

  constructor(
    private readonly speaker: BgpSpeaker,
    readonly peer: number,
    readonly passive: boolean,
  ) {}

  get name(): string {
    return `Mesh_${formatIPv4(this.peer).replace(/\./g, "_")}`;
  }

  /** Startup: an active peer connects after the connect delay, a passive one waits. */
  start(delayNs: number): void {
    if (this.passive) {
      this.state = SessionState.ACTIVE;
      return;
    }
    this.state = SessionState.CONNECT;
    this.connectTimer = this.speaker.timers.arm(delayNs, () => this.connect());
  }

  stop(): void {
    if (this.conn !== null) this.notify(BgpError.CEASE, CEASE_SHUTDOWN, "administrative shutdown");
    this.teardown("stopped");
    this.connectTimer = this.speaker.timers.cancel(this.connectTimer);
    this.state = SessionState.IDLE;
  }

  /** A connection from the peer arrived on port 179; returns false when it must be refused. */
  accept(conn: BgpConnection): boolean {
    if (this.conn !== null || this.state === SessionState.IDLE) return false;
    this.connectTimer = this.speaker.timers.cancel(this.connectTimer);
    this.conn = conn;
    this.sendOpen();
    return true;
  }

  private connect(): void {
    this.connectTimer = 0;
    this.conn = this.speaker.transport.connect(this.speaker.config.localAddress, this.peer, this);
  }

  // ---- connection events

  onOpen(): void {
    this.sendOpen();
  }

  onData(bytes: Uint8Array): void {
    const { messages, badLength } = this.framer.push(bytes);
    for (const m of messages) {
      if (this.conn === null) return;
      this.receive(m);
    }
    if (badLength !== null && this.conn !== null) this.error(BgpError.HEADER, HeaderSub.BAD_LENGTH, `message length ${badLength}`);
  }

  onClose(reason: string): void {
    if (this.conn === null) return;
    this.conn = null;
    this.down(`connection closed: ${reason}`);
  }

  // ---- messages

  private sendOpen(): void {
    const cfg = this.speaker.config;
    this.send(
      encodeOpen({ version: 4, myAs: cfg.localAs > 0xffff ? AS_TRANS : cfg.localAs, holdTime: cfg.holdTime, bgpId: cfg.routerId, capabilities: standardCapabilities(cfg.localAs) }),
      "OPEN",
      `AS ${cfg.localAs}, hold ${cfg.holdTime} s, id ${formatIPv4(cfg.routerId)}`,
    );
    this.state = SessionState.OPEN_SENT;
  }

  private receive(bytes: Uint8Array): void {
    // Data before our connect confirmation can only mean the connection is up: send our OPEN first.
    if (this.state === SessionState.CONNECT) this.sendOpen();
    const decoded = decodeMessage(bytes, this.fourOctet);
    if (!decoded.ok) {
      const e = decoded.error;
      this.speaker.record("rx", this.peer, "MALFORMED", `${e.field} at byte ${e.offset}: ${e.reason}`);
      this.error(e.code, e.subcode, e.reason);
      return;
    }
    const msg = decoded.value;
    this.speaker.record("rx", this.peer, typeName(msg.type), describe(msg));
    this.resetHold();
    switch (msg.type) {
      case BgpType.OPEN:
        return this.onOpenMessage(msg.open);
      case BgpType.KEEPALIVE:
        if (this.state === SessionState.OPEN_CONFIRM) this.established();
        else if (this.state !== SessionState.ESTABLISHED) this.error(BgpError.FSM, 0, `KEEPALIVE in ${this.state}`);
        return;
      case BgpType.UPDATE:
        if (this.state !== SessionState.ESTABLISHED) return this.error(BgpError.FSM, 0, `UPDATE in ${this.state}`);
        return this.applyUpdate(msg.update);
      case BgpType.NOTIFICATION:
        this.teardown(`NOTIFICATION ${msg.notification.code}/${msg.notification.subcode} from the peer`);
        return;
    }
  }

  private onOpenMessage(open: { myAs: number; holdTime: number; bgpId: number; capabilities: readonly { code: number; value: Uint8Array }[] }): void {
    if (this.state !== SessionState.OPEN_SENT) return this.error(BgpError.FSM, 0, `OPEN in ${this.state}`);
    const cfg = this.speaker.config;
    const as4 = fourOctetAsOf({ version: 4, myAs: open.myAs, holdTime: open.holdTime, bgpId: open.bgpId, capabilities: open.capabilities });
    const peerAs = as4 ?? open.myAs;
    if (peerAs !== cfg.localAs) return this.error(BgpError.OPEN, OpenSub.BAD_PEER_AS, `peer AS ${peerAs}, expected ${cfg.localAs} (iBGP mesh)`);
    if (open.bgpId === cfg.routerId) return this.error(BgpError.OPEN, OpenSub.BAD_BGP_ID, "peer has our BGP identifier");
    this.fourOctet = as4 !== null;
    this.peerId = open.bgpId;
    this.holdTime = Math.min(cfg.holdTime, open.holdTime);
    this.send(encodeKeepalive(), "KEEPALIVE", "");
    this.state = SessionState.OPEN_CONFIRM;
    this.resetHold();
  }

  private established(): void {
    this.state = SessionState.ESTABLISHED;
    this.establishedAt = this.speaker.timers.sim.now;
    this.armKeepalive();
    const routes = this.speaker.rib.localRoutes();
    if (routes.length > 0) this.announce(routes, []);
  }

  /** Sends locally originated routes (iBGP: learned ones are never re-advertised to mesh peers). */
  announce(nlri: readonly Ipv4Route[], withdrawn: readonly Ipv4Route[]): void {
    if (this.state !== SessionState.ESTABLISHED) return;
    const cfg = this.speaker.config;
    const update: BgpUpdate = {
      withdrawn,
      attributes: nlri.length === 0 ? null : { origin: Origin.IGP, asPath: [], nextHop: cfg.localAddress, localPref: 100 },
      nlri,
    };
    const msg: BgpMessage = { type: BgpType.UPDATE, update };
    this.send(encodeUpdate(update, this.fourOctet), "UPDATE", describe(msg));
  }

  private applyUpdate(u: BgpUpdate): void {
    const rib = this.speaker.rib;
    if (u.withdrawn.length > 0) rib.withdraw(this.peer, u.withdrawn);
    if (u.attributes !== null && u.nlri.length > 0) rib.learn(this.peer, this.peerId, u.attributes, u.nlri);
  }

  // ---- timers

  private resetHold(): void {
    this.holdTimer = this.speaker.timers.cancel(this.holdTimer);
    const hold = this.state === SessionState.ESTABLISHED || this.state === SessionState.OPEN_CONFIRM ? this.holdTime : this.speaker.config.holdTime;
    if (hold === 0 || this.conn === null) return;
    this.holdTimer = this.speaker.timers.arm(hold * NS, () => {
      this.holdTimer = 0;
      this.error(BgpError.HOLD_TIMER_EXPIRED, 0, "hold timer expired");
    });
  }

  private armKeepalive(): void {
    this.keepaliveTimer = this.speaker.timers.cancel(this.keepaliveTimer);
    if (this.holdTime === 0) return;
    this.keepaliveTimer = this.speaker.timers.arm(Math.floor(this.holdTime / 3) * NS, () => {
      this.keepaliveTimer = 0;
      if (this.state !== SessionState.ESTABLISHED) return;
      this.send(encodeKeepalive(), "KEEPALIVE", "");
      this.armKeepalive();
    });
  }

  // ---- errors and teardown

  private send(bytes: Uint8Array, type: string, detail: string): void {
    if (this.conn === null) return;
    this.speaker.record("tx", this.peer, type, detail);
    this.conn.send(bytes);
  }

  private notify(code: number, subcode: number, why: string): void {
    this.send(encodeNotification({ code, subcode, data: new Uint8Array(0) }), "NOTIFICATION", `${code}/${subcode} ${why}`);
  }

  private error(code: number, subcode: number, why: string): void {
    this.notify(code, subcode, why);
    this.teardown(why);
  }

  private teardown(why: string): void {
    const conn = this.conn;
    this.conn = null;
    conn?.close();
    this.down(why);
  }

  /** Back to Idle: routes from the peer are gone; an active side retries after the connect retry time. */
  private down(why: string): void {
    this.holdTimer = this.speaker.timers.cancel(this.holdTimer);
    this.keepaliveTimer = this.speaker.timers.cancel(this.keepaliveTimer);
    this.framer = new BgpFramer();
    const wasUp = this.state === SessionState.ESTABLISHED;
    this.speaker.rib.dropPeer(this.peer);
    this.speaker.record("event", this.peer, "DOWN", `${this.state} -> ${this.passive ? "Active" : "Connect"}: ${why}${wasUp ? " (routes from the peer withdrawn)" : ""}`);
    if (this.passive) {
      this.state = SessionState.ACTIVE;
      return;
    }
    this.state = SessionState.CONNECT;
    this.connectTimer = this.speaker.timers.cancel(this.connectTimer);
    this.connectTimer = this.speaker.timers.arm(this.speaker.config.connectRetryNs, () => this.connect());
  }
}

function typeName(t: number): string {
  return t === BgpType.OPEN ? "OPEN" : t === BgpType.UPDATE ? "UPDATE" : t === BgpType.NOTIFICATION ? "NOTIFICATION" : "KEEPALIVE";
}

const route = (r: Ipv4Route): string => `${formatIPv4(r.prefix)}/${r.length}`;

function describe(m: BgpMessage): string {
  switch (m.type) {
    case BgpType.OPEN:
      return `AS ${m.open.myAs}, hold ${m.open.holdTime} s, id ${formatIPv4(m.open.bgpId)}`;
    case BgpType.UPDATE: {
      const u = m.update;
      const parts: string[] = [];
      if (u.nlri.length > 0) parts.push(`announce ${u.nlri.map(route).join(" ")} next-hop ${formatIPv4(u.attributes?.nextHop ?? 0)}`);
      if (u.withdrawn.length > 0) parts.push(`withdraw ${u.withdrawn.map(route).join(" ")}`);
      return parts.join("; ");
    }
    case BgpType.NOTIFICATION:
      return `${m.notification.code}/${m.notification.subcode}`;
    case BgpType.KEEPALIVE:
      return "";
  }
}
