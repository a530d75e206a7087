// EthernetDevice: a NIC (a node's eth0, an external host's interface, a switch port) that
// transmits onto a Link.

import { DropReason } from "../../datapath/reasons.js";
import type { SkBuff } from "../skb/skbuff.js";
import { DeviceKind, NetDevice } from "./device.js";
import type { Link, LinkSender } from "./link.js";

export class EthernetDevice extends NetDevice {
  readonly kind = DeviceKind.ETHERNET;
  private attached: Link | null = null;
  /** The attached link's direction away from this device, resolved when the link is set. */
  private sender: LinkSender | null = null;

  get link(): Link | null {
    return this.attached;
  }

  set link(link: Link | null) {
    this.attached = link;
    this.sender = link === null ? null : link.senderFrom(this);
  }

  protected xmit(skb: SkBuff): void {
    const sender = this.sender;
    if (sender !== null) {
      sender.send(skb);
      return;
    }
    if (this.attached === null) {
      this.world.drop(skb, this.site("xmit"), DropReason.LINK_DOWN, "net/ethernet:no-carrier", true);
      return;
    }
    this.attached.send(this, skb); // a link this device is no end of: Link.send reports it
  }
}
