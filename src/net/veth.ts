// Veth pair: what one end transmits, the other receives in the same event (the kernel copies
// between the two ends without a wire). Crossing into another namespace scrubs the packet's
// namespace-local state (mark, conntrack), as the kernel's skb_scrub_packet does.

import type { SkBuff } from "../skb/skbuff.js";
import { DeviceKind, NetDevice } from "./device.js";
import type { NetWorld } from "./world.js";

export class VethDevice extends NetDevice {
  readonly kind = DeviceKind.VETH;
  peer!: VethDevice;

  /** Creates both ends; attach each to its namespace (or a bridge) afterwards. */
  static pair(world: NetWorld, nameA: string, macA: number, nameB: string, macB: number, mtu = 1500): [VethDevice, VethDevice] {
    const a = new VethDevice(world, nameA, macA, mtu);
    const b = new VethDevice(world, nameB, macB, mtu);
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  protected xmit(skb: SkBuff): void {
    const peer = this.peer;
    if (peer.stack !== this.stack) {
      skb.mark = 0;
      skb.ctState = 0;
      skb.ctEntry = -1;
    }
    peer.receive(skb);
  }
}
