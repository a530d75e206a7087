// The model side of a kernel comparison: one simulated world with namespaces and veth pairs built the
// way the kernel lab builds the real ones, taps that record what each device receives, and injection
// of the same frames (a raw endpoint transmits them, as AF_PACKET does in the kernel lab).

import { Simulator } from "../../../src/engine/simulator.js";
import type { NetDevice } from "../../../src/net/device.js";
import { NetWorld } from "../../../src/net/world.js";
import { VethDevice } from "../../../src/net/veth.js";
import { NetNamespace } from "../../../src/net/stack/namespace.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { ip4, mac } from "./frames.js";

export class ModelLab {
  readonly sim: Simulator;
  readonly world: NetWorld;

  constructor(seed = 1) {
    this.sim = new Simulator({ seed });
    this.world = new NetWorld(this.sim);
  }

  ns(name: string): NetNamespace {
    return new NetNamespace(this.world, name, name);
  }

  /** A veth pair with the lab's MACs; an end with a null namespace is a raw endpoint (no stack). */
  veth(nsA: NetNamespace | null, nameA: string, macA: string, nsB: NetNamespace | null, nameB: string, macB: string, mtu = 1500): [VethDevice, VethDevice] {
    const [a, b] = VethDevice.pair(this.world, nameA, mac(macA), nameB, mac(macB), mtu);
    if (nsA !== null) must(nsA.addDevice(a));
    if (nsB !== null) must(nsB.addDevice(b));
    return [a, b];
  }

  addr(ns: NetNamespace, dev: NetDevice, cidr: string): void {
    const [a, len] = cidr.split("/");
    must(ns.addAddress(dev, ip4(a ?? ""), Number(len)));
  }

  neigh(ns: NetNamespace, dev: NetDevice, addr: string, lladdr: string): void {
    ns.neigh.addStatic(dev, ip4(addr), mac(lladdr));
  }

  /** Records a copy of every frame dev receives ("rx") or sends ("tx"). */
  tap(dev: NetDevice, direction: "rx" | "tx" = "rx"): Uint8Array[] {
    const seen: Uint8Array[] = [];
    dev.taps.push({ onFrame: (_d, dir, skb) => void (dir === direction && seen.push(skb.bytes().slice())) });
    return seen;
  }

  /**
   * dev transmits the frames in order, the simulation running stepNs (default 1 ms) after each, as
   * the kernel lab's frames are handled within a millisecond or so of each other. Not "until idle":
   * that would also fire timers (neighbour probes, ageing) the short kernel run never reaches.
   */
  send(dev: NetDevice, frames: readonly Uint8Array[], stepNs = 1_000_000): void {
    for (const f of frames) {
      dev.transmit(SkBuff.fromBytes(this.world.ledger.admit(), f));
      this.sim.runUntil(this.sim.now + stepNs);
    }
  }
}

/** Unwraps a model configuration Result; a configuration error fails the test with its text. */
export function must<T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!r.ok) throw new Error(`model configuration failed: ${JSON.stringify(r.error)}`);
  return r.value;
}
