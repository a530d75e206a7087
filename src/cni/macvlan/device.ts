// macvlan in bridge mode (drivers/net/macvlan.c): several virtual interfaces with their own MACs on
// one parent. Transmit: a frame for a sibling's MAC goes straight to it; a broadcast goes to every
// sibling and out of the parent; anything else leaves through the parent onto the wire. Receive: the
// parent's rx handler hands a frame for a macvlan's MAC to that macvlan, broadcasts to all of them
// and to the parent's own stack. Frames a macvlan sends never reach the parent's stack: they leave on
// the wire, and the switch does not send a frame back out of the port it came in on, so a pod on a
// macvlan cannot reach its own host through the parent interface (and vice versa).
import { DropReason } from "../../../datapath/reasons.js";
import { DeviceKind, NetDevice, type MasterPort } from "../../net/device.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { isGroupMac, readMac } from "../../util/mac.js";

/** The parent's rx handler: dispatches received frames to the macvlans by destination MAC. */
export class MacvlanPort implements MasterPort {
  readonly vlans: MacvlanDevice[] = [];

  constructor(readonly parent: NetDevice) {
    parent.master = this;
  }

  byMac(mac: number): MacvlanDevice | undefined {
    for (const v of this.vlans) if (v.mac === mac && v.up) return v;
    return undefined;
  }

  handleFrame(port: NetDevice, skb: SkBuff): void {
    const dst = readMac(skb.data, skb.head);
    if (isGroupMac(dst)) {
      for (const v of this.vlans) if (v.up) v.receive(skb.clone(port.world.ledger.admit()));
      this.toParentStack(skb);
      return;
    }
    const target = this.byMac(dst);
    if (target !== undefined) target.receive(skb);
    else this.toParentStack(skb);
  }

  private toParentStack(skb: SkBuff): void {
    const p = this.parent;
    if (p.stack !== null) p.stack.input(p, skb);
    else p.world.drop(skb, p.site("rx"), DropReason.NO_STACK, "cni/macvlan:parent-no-stack", true);
  }
}

export class MacvlanDevice extends NetDevice {
  readonly kind = DeviceKind.MACVLAN;

  constructor(
    private readonly port: MacvlanPort,
    name: string,
    mac: number,
  ) {
    super(port.parent.world, name, mac, port.parent.mtu);
    port.vlans.push(this);
  }

  /** Deletes the device from its parent. */
  detach(): void {
    const i = this.port.vlans.indexOf(this);
    if (i >= 0) this.port.vlans.splice(i, 1);
    this.up = false;
  }

  protected xmit(skb: SkBuff): void {
    const dst = readMac(skb.data, skb.head);
    if (isGroupMac(dst)) {
      for (const v of this.port.vlans) if (v !== this && v.up) v.receive(skb.clone(this.world.ledger.admit()));
      this.port.parent.transmit(skb);
      return;
    }
    const sibling = this.port.byMac(dst);
    if (sibling !== undefined && sibling !== this) sibling.receive(skb);
    else this.port.parent.transmit(skb);
  }
}
