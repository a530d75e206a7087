// The UDP socket VXLAN devices share per (namespace, port), as struct vxlan_sock: one bound port,
// received datagrams demultiplexed by VNI (vxlan_rcv). Header checks happen here in the kernel's
// order: the I flag, then a device for the VNI (else INVALID_VNI), then the reserved bits.

import { DropReason } from "../../../datapath/reasons.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { read32 } from "../../wire/bytes.js";
import { err, ok, type Result } from "../../util/result.js";
import type { NetNamespace } from "../stack/namespace.js";
import { SocketMode, type SocketInfo } from "../stack/sockets.js";

export const VXLAN_HLEN = 16; // UDP + VXLAN
const VXLAN_FLAGS_I = 0x08000000;

/** What the socket needs from a device: its VNI and the rest of the receive path. */
export interface VxlanEndpoint {
  readonly vni: number;
  readonly name: string;
  /** Continues vxlan_rcv for a datagram whose header checked out (skb.head at the UDP header). */
  decapsulate(skb: SkBuff, info: SocketInfo): void;
}

export interface VxlanSocketError {
  readonly namespace: string;
  readonly port: number;
  readonly reason: string;
}

export class VxlanSocket {
  private readonly devices = new Map<number, VxlanEndpoint>();
  /** The device of the VNI received last (one tunnel's datagrams come in runs); cleared when the devices change. */
  private lastVni = -1;
  private lastDevice: VxlanEndpoint | undefined = undefined;

  constructor(
    readonly ns: NetNamespace,
    readonly port: number,
  ) {}

  get deviceCount(): number {
    return this.devices.size;
  }

  /** The device registered for vni (vxlan_vs_find_vni). */
  device(vni: number): VxlanEndpoint | undefined {
    if (vni === this.lastVni) return this.lastDevice;
    const dev = this.devices.get(vni);
    this.lastVni = vni;
    this.lastDevice = dev;
    return dev;
  }

  register(dev: VxlanEndpoint): void {
    this.devices.set(dev.vni, dev);
    this.lastVni = -1;
  }

  unregister(dev: VxlanEndpoint): void {
    this.devices.delete(dev.vni);
    this.lastVni = -1;
  }

  /** vxlan_rcv's header checks, then the device's decapsulation. */
  receive(skb: SkBuff, info: SocketInfo): void {
    const b = skb.data;
    const at = skb.head;
    if (skb.length < VXLAN_HLEN) return this.drop(skb, info, DropReason.INVALID_PACKET, "net/vxlan:short", `vxlan.header at UDP byte 8: ${skb.length - 8} bytes`);
    const flags = read32(b, at + 8);
    const vniWord = read32(b, at + 12);
    if ((flags & VXLAN_FLAGS_I) === 0) {
      return this.drop(skb, info, DropReason.INVALID_PACKET, "net/vxlan:flags", `vxlan.flags at UDP byte 8: I flag not set (0x${b[at + 8]!.toString(16).padStart(2, "0")})`);
    }
    const vni = vniWord >>> 8;
    const dev = this.device(vni);
    if (dev === undefined) return this.drop(skb, info, DropReason.INVALID_VNI, "net/vxlan:vni", `no VXLAN device with VNI ${vni} on UDP port ${this.port}`);
    if (skb.length < VXLAN_HLEN + 14) return this.drop(skb, info, DropReason.INVALID_PACKET, "net/vxlan:inner-short", "inner Ethernet header truncated");
    if ((flags & ~VXLAN_FLAGS_I) !== 0 || (vniWord & 0xff) !== 0) {
      return this.drop(skb, info, DropReason.INVALID_PACKET, "net/vxlan:reserved", "vxlan reserved bits set (Linux drops them unless GBP/GPE is on)");
    }
    dev.decapsulate(skb, info);
  }

  /** Drops a datagram, restoring the outer IPv4 header at skb.head so the record names the outer flow. */
  drop(skb: SkBuff, info: SocketInfo, reason: number, site: string, explanation: string): void {
    skb.head = info.ipOffset;
    this.ns.world.drop(skb, this.ns.site(info.dev, "vxlan-rcv"), reason, site, false, { explanation });
  }
}

const registry = new WeakMap<NetNamespace, Map<number, VxlanSocket>>();

/** Binds (or joins) the VXLAN socket on port and registers the device's VNI on it. */
export function joinSocket(ns: NetNamespace, port: number, dev: VxlanEndpoint): Result<VxlanSocket, VxlanSocketError> {
  let byPort = registry.get(ns);
  if (byPort === undefined) registry.set(ns, (byPort = new Map()));
  let sock = byPort.get(port);
  if (sock === undefined) {
    const s = new VxlanSocket(ns, port);
    const bound = ns.bindUdp(port, (skb, info) => s.receive(skb, info), SocketMode.TUNNEL);
    if (!bound.ok) return err({ namespace: ns.name, port, reason: `UDP port ${port} is taken: ${bound.error.reason}` });
    byPort.set(port, s);
    sock = s;
  }
  const clash = sock.device(dev.vni);
  if (clash !== undefined && clash !== dev) return err({ namespace: ns.name, port, reason: `VNI ${dev.vni} already used by ${clash.name} (EEXIST)` });
  sock.register(dev);
  return ok(sock);
}

/** Removes the device from its socket; the port is unbound with the last device. */
export function leaveSocket(ns: NetNamespace, port: number, dev: VxlanEndpoint): void {
  const byPort = registry.get(ns);
  const sock = byPort?.get(port);
  if (byPort === undefined || sock === undefined || sock.device(dev.vni) !== dev) return;
  sock.unregister(dev);
  if (sock.deviceCount === 0) {
    ns.unbindUdp(port);
    byPort.delete(port);
  }
}

/** The device for (port, vni) in ns, for encapsulation bypass to a local VTEP (vxlan_find_vni). */
export function findEndpoint(ns: NetNamespace, port: number, vni: number): VxlanEndpoint | undefined {
  return registry.get(ns)?.get(port)?.device(vni);
}
