// EthernetDevice: a NIC (a node's eth0, an external host's interface, a switch port) that
// transmits onto a Link.

import { DropReason } from "../../datapath/reasons.js";
import type { SkBuff } from "../skb/skbuff.js";
import { DeviceKind, NetDevice } from "./device.js";
import type { Link } from "./link.js";

export class EthernetDevice extends NetDevice {
  readonly kind = DeviceKind.ETHERNET;
  link: Link | null = null;

  protected xmit(skb: SkBuff): void {
    if (this.link === null) {
      this.world.drop(skb, this.site("xmit"), DropReason.LINK_DOWN, "net/ethernet:no-carrier", true);
      return;
    }
    this.link.send(this, skb);
  }
}
