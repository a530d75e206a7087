// The BGP speaker's decision process and sessions: best-path choice (RFC 4271 9.1.2.2), a full mesh
// over an in-memory byte-stream transport with link delay (the production transport is TCP; this
// double isolates the session logic), routes installed because an UPDATE arrived, withdrawn when the
// session drops, and the unidirectional mesh (the higher address is passive).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../src/engine/simulator.js";
import { better, Rib, type RibPath, type RouteSink } from "../../src/cni/calico/bgp/rib.js";
import { BgpSpeaker } from "../../src/cni/calico/bgp/speaker.js";
import { SessionState } from "../../src/cni/calico/bgp/session.js";
import { BgpTimers } from "../../src/cni/calico/bgp/timers.js";
import type { BgpConnection, BgpConnectionEvents, BgpTransport } from "../../src/cni/calico/bgp/transport.js";
import { Origin } from "../../src/cni/calico/bgp/message.js";
import { formatIPv4 } from "../../src/util/ip.js";

const ip = (s: string): number => s.split(".").reduce((a, o) => a * 256 + Number(o), 0);
const path = (peerId: number, over: Partial<RibPath["attributes"]> = {}): RibPath => ({
  prefix: ip("10.0.0.0"),
  length: 24,
  peer: peerId,
  peerId,
  attributes: { origin: Origin.IGP, asPath: [], nextHop: peerId, localPref: 100, ...over },
});

test("best path: LOCAL_PREF, then AS_PATH length, then ORIGIN, then the lower BGP identifier", () => {
  assert.ok(better(path(9, { localPref: 200 }), path(1)));
  assert.ok(better(path(9), path(1, { asPath: [65000] })));
  assert.ok(better(path(9), path(1, { origin: Origin.INCOMPLETE })));
  assert.ok(better(path(1), path(9)));
});

class Sink implements RouteSink {
  readonly routes = new Map<string, string>();
  install(prefix: number, length: number, nextHop: number): void {
    this.routes.set(`${formatIPv4(prefix)}/${length}`, formatIPv4(nextHop));
  }
  remove(prefix: number, length: number): void {
    this.routes.delete(`${formatIPv4(prefix)}/${length}`);
  }
}

test("the RIB installs a learned route, prefers its own origination, and withdraws with the peer", () => {
  const sink = new Sink();
  const rib = new Rib(sink);
  rib.learn(ip("10.1.8.31"), ip("10.1.8.31"), path(0).attributes, [{ prefix: ip("10.224.41.128"), length: 26 }]);
  assert.deepEqual([...sink.routes], [["10.224.41.128/26", "0.0.0.0"]]);
  rib.originate({ prefix: ip("10.224.41.128"), length: 26 });
  assert.equal(sink.routes.size, 0, "a block we originate is not routed elsewhere");
  rib.stopOriginating({ prefix: ip("10.224.41.128"), length: 26 });
  assert.equal(sink.routes.size, 1);
  rib.dropPeer(ip("10.1.8.31"));
  assert.equal(sink.routes.size, 0);
});

/** A byte-stream transport with a fixed one-way delay (a test double for TCP). */
class Wire {
  private readonly listeners = new Map<number, (remote: number, conn: BgpConnection) => BgpConnectionEvents | null>();
  down = false;
  constructor(
    private readonly sim: Simulator,
    private readonly delayNs: number,
  ) {}
  transport(self: number): BgpTransport {
    return {
      connect: (local, remote, events) => this.connect(local, remote, events),
      listen: (accept) => void this.listeners.set(self, accept),
    };
  }
  private connect(local: number, remote: number, events: BgpConnectionEvents): BgpConnection {
    let peerEvents: BgpConnectionEvents | null = null;
    const wire = this;
    let open = true;
    const toPeer: BgpConnection = {
      send: (bytes) => {
        const copy = bytes.slice();
        this.sim.schedule(this.delayNs, () => open && !wire.down && events.onData(copy));
      },
      close: () => {
        open = false;
        this.sim.schedule(this.delayNs, () => events.onClose("peer closed"));
      },
    };
    const conn: BgpConnection = {
      send: (bytes) => {
        const copy = bytes.slice();
        this.sim.schedule(this.delayNs, () => open && !wire.down && peerEvents?.onData(copy));
      },
      close: () => {
        open = false;
        this.sim.schedule(this.delayNs, () => peerEvents?.onClose("peer closed"));
      },
    };
    // As with TCP: the active side learns of the connection (SYN-ACK) before the passive side accepts it.
    const accept = this.listeners.get(remote);
    if (accept === undefined) this.sim.schedule(this.delayNs, () => events.onClose("connection refused"));
    else {
      this.sim.schedule(this.delayNs, () => events.onOpen());
      this.sim.schedule(2 * this.delayNs, () => {
        peerEvents = accept(local, toPeer);
        if (peerEvents === null) events.onClose("connection reset");
      });
    }
    return conn;
  }
}

/** Runs until only BGP timers remain, stopping before the next one fires. */
function settle(sim: Simulator, timers: BgpTimers): void {
  while (sim.pending > timers.pending && sim.nextEventTime < timers.earliestDue) sim.step();
}

function mesh(addresses: string[]) {
  const sim = new Simulator({ seed: 1 });
  const wire = new Wire(sim, 50_000);
  const timers = new BgpTimers(sim);
  const sinks = addresses.map(() => new Sink());
  const speakers = addresses.map((a, i) =>
    BgpSpeaker.create(sim, wire.transport(ip(a)), { nodeName: `n${i}`, routerId: ip(a), localAddress: ip(a) }, sinks[i]!, timers),
  );
  speakers.forEach((s, i) => addresses.forEach((b, j) => i !== j && s.addPeer(ip(b))));
  return { sim, wire, timers, sinks, speakers };
}

test("a three-node full mesh converges and every node routes the others' blocks via their addresses", () => {
  const { sim, sinks, speakers, timers } = mesh(["10.1.8.30", "10.1.8.31", "10.1.8.32"]);
  speakers.forEach((s, i) => s.originate({ prefix: ip(`10.224.${i}.0`), length: 26 }));
  speakers.forEach((s) => s.start());
  while (sim.pending > 0 && !speakers.every((s) => s.converged)) sim.step();
  settle(sim, timers);
  assert.ok(speakers.every((s) => s.peers().every((p) => p.state === SessionState.ESTABLISHED)));
  assert.ok(sim.now >= 5_000_000_000, "BIRD waits its connect delay (5 s) before the first connection");
  assert.deepEqual([...sinks[0]!.routes].sort(), [["10.224.1.0/26", "10.1.8.31"], ["10.224.2.0/26", "10.1.8.32"]]);
  assert.deepEqual([...sinks[2]!.routes].sort(), [["10.224.0.0/26", "10.1.8.30"], ["10.224.1.0/26", "10.1.8.31"]]);
  // The route exists because an UPDATE arrived: node 0 logged receiving it from .32 before installing.
  const rx = speakers[0]!.log.filter((e) => e.dir === "rx" && e.type === "UPDATE").map((e) => `${formatIPv4(e.peer)} ${e.detail}`);
  assert.ok(rx.includes("10.1.8.32 announce 10.224.2.0/26 next-hop 10.1.8.32"), rx.join("\n"));
  // Unidirectional mesh: only the lower address opens connections.
  assert.deepEqual(speakers.map((s) => s.peers().map((p) => p.passive)), [[false, false], [true, false], [true, true]]);
});

test("a block originated later is announced at once; a hold timer expiry withdraws the peer's routes", () => {
  const { sim, sinks, speakers, timers, wire } = mesh(["10.1.8.30", "10.1.8.31"]);
  speakers.forEach((s) => s.start());
  while (sim.pending > 0 && !speakers.every((s) => s.converged)) sim.step();
  settle(sim, timers);
  speakers[1]!.originate({ prefix: ip("10.224.9.0"), length: 26 });
  settle(sim, timers);
  assert.deepEqual([...sinks[0]!.routes], [["10.224.9.0/26", "10.1.8.31"]]);
  wire.down = true; // keepalives stop arriving
  sim.runUntil(sim.now + 241_000_000_000);
  assert.equal(sinks[0]!.routes.size, 0, "240 s without a message: Hold Timer Expired, routes withdrawn");
  assert.ok(speakers[0]!.log.some((e) => e.type === "NOTIFICATION" && e.dir === "tx" && e.detail.startsWith("4/0")));
});
