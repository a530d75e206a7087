// What netfilter needs from the namespace it runs in (NetNamespace implements it): the world for
// drops and new packets, address facts for MASQUERADE/REJECT/addrtype (and the address list for
// control planes), and a way to send packets.

import type { NetDevice } from "../device.js";
import type { NetWorld } from "../world.js";
import type { SkBuff } from "../../skb/skbuff.js";

export interface NetfilterHost {
  readonly world: NetWorld;
  readonly name: string;
  readonly nodeName: string;
  /** First IPv4 address of dev, 0 if none. */
  primaryAddress(dev: NetDevice): number;
  isLocalAddress(addr: number): boolean;
  /**
   * Optional: every IPv4 address configured on the namespace's interfaces (`ip -4 addr`: interfaces
   * in order, lo's 127.0.0.1 included), e.g. for kube-proxy's --nodeport-addresses.
   */
  localAddresses?(): readonly number[];
  /** Sends an IPv4 packet from this namespace (REJECT's ICMP/RST): route, OUTPUT, POSTROUTING, xmit. */
  outputIp(skb: SkBuff): void;
  /**
   * Optional: the kernel's source address choice for a packet to `dst` (inet_select_addr / route
   * prefsrc): with dev, prefer dev's address in dst's subnet, then dev's primary, then any other
   * interface's; without dev, the source the route to dst would use. 0 when there is none.
   * Without it netfilter uses primaryAddress(dev).
   */
  selectSourceAddress?(dst: number, dev: NetDevice | null): number;
  /**
   * Optional: the stack's icmp_send for REJECT (route-based source, rate limits). It must attach
   * the original's connection (Netfilter.attachRelated) as icmp_send does. Returns true when sent.
   * Without it netfilter builds the error itself (reject.ts) and sends it with outputIp.
   */
  sendIcmpError?(orig: SkBuff, type: number, code: number, inDev: NetDevice | null): boolean;
}
