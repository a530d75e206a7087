// A bridge port: the enslaved device and its per-port flags (`bridge link set dev X ...`), with the
// kernel's defaults: learning, unicast/multicast/broadcast flooding on, hairpin and isolation off.

import type { NetDevice } from "../device.js";
import { FdbSlotMemo } from "./fdb.js";

export interface BridgePortFlags {
  /** BR_LEARNING: source MACs seen on this port are learned. */
  learning: boolean;
  /** BR_FLOOD: unknown unicast is flooded to this port. */
  flood: boolean;
  /** BR_MCAST_FLOOD: multicast without a snooping entry is flooded to this port. */
  mcastFlood: boolean;
  /** BR_BCAST_FLOOD: broadcast is flooded to this port. */
  bcastFlood: boolean;
  /** BR_HAIRPIN_MODE: frames may leave by the port they arrived on (off by default). */
  hairpin: boolean;
  /** BR_ISOLATED: isolated ports never exchange frames with each other. */
  isolated: boolean;
}

export const DEFAULT_PORT_FLAGS: Readonly<BridgePortFlags> = Object.freeze({
  learning: true,
  flood: true,
  mcastFlood: true,
  bcastFlood: true,
  hairpin: false,
  isolated: false,
});

export class BridgePort implements BridgePortFlags {
  learning: boolean;
  flood: boolean;
  mcastFlood: boolean;
  bcastFlood: boolean;
  hairpin: boolean;
  isolated: boolean;
  /** FDB slots of the last source learned from and the last destination looked up for this port's frames. */
  readonly srcSlot = new FdbSlotMemo();
  readonly dstSlot = new FdbSlotMemo();

  constructor(
    readonly dev: NetDevice,
    /** Index in the bridge's port table (what FDB entries store). */
    readonly index: number,
    flags: Partial<BridgePortFlags>,
  ) {
    const f = { ...DEFAULT_PORT_FLAGS, ...flags };
    this.learning = f.learning;
    this.flood = f.flood;
    this.mcastFlood = f.mcastFlood;
    this.bcastFlood = f.bcastFlood;
    this.hairpin = f.hairpin;
    this.isolated = f.isolated;
  }

  /** BR_STATE_FORWARDING: with STP off a port forwards as soon as its device is up. */
  get forwarding(): boolean {
    return this.dev.up;
  }
}
