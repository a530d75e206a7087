// Veth pair: what one end transmits, the other receives in the same event (the kernel copies
// between the two ends without a wire). Crossing into another namespace scrubs the packet's
// namespace-local state (mark, conntrack), as the kernel's skb_scrub_packet does.

import { DropReason } from "../../datapath/reasons.js";
import type { SkBuff } from "../skb/skbuff.js";
import { DeviceKind, NetDevice } from "./device.js";
import type { NetWorld } from "./world.js";

/** Ethernet header plus one VLAN tag, which the receiving end accepts beyond its MTU. */
const VETH_L2_ALLOWANCE = 14 + 4;

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
    // The kernel forwards to the peer only what it could receive: its MTU plus the Ethernet
    // header and one VLAN tag (is_skb_forwardable); anything longer is counted and dropped. A GSO
    // super-packet passes whatever its length, as in the kernel (its segments are checked where they leave).
    if (skb.length > peer.mtu + VETH_L2_ALLOWANCE && skb.gsoSize === 0) {
      this.stats.txDropped++;
      this.world.drop(skb, this.site("xmit"), DropReason.MTU_EXCEEDED, "net/veth:peer-mtu", true, {
        explanation: `${skb.length}-byte frame exceeds ${peer.name}'s MTU ${peer.mtu} + ${VETH_L2_ALLOWANCE}`,
      });
      return;
    }
    if (peer.stack !== this.stack) {
      skb.mark = 0;
      skb.ctState = 0;
      skb.ctEntry = -1;
    }
    peer.receive(skb);
  }
}
