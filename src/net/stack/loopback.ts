// The namespace's loopback device (lo): what the stack sends to its own addresses comes back in on
// lo from a 0-delay event, as the kernel's loopback_xmit hands it to the backlog (netif_rx). Frames
// carry an Ethernet header with all-zero addresses, which equals lo's own (zero) MAC.

import type { SkBuff } from "../../skb/skbuff.js";
import { DeviceKind, NetDevice } from "../device.js";
import type { NetWorld } from "../world.js";

export const LOOPBACK_MTU = 65536;

export class LoopbackDevice extends NetDevice {
  readonly kind = DeviceKind.LOOPBACK;
  private readonly loop = (skb: SkBuff): void => this.receive(skb);

  constructor(world: NetWorld, name = "lo") {
    super(world, name, 0, LOOPBACK_MTU);
  }

  protected xmit(skb: SkBuff): void {
    this.world.sim.schedule(0, this.loop, skb);
  }
}
