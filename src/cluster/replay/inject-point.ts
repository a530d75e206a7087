// Where replayed packets enter the cluster. The frames go through an ExternalPort (the live-attach entry:
// admission into the ledger, refusal of runt/truncated/oversized frames as drops, input scheduling) whose
// "stack" hands each frame to the point's device: transmitted by it (a pod's or external host's eth0:
// the frame goes onto its veth or wire) or received by it (a node's device, as from its wire or tunnel).
import type { ClusterRuntime } from "../runtime.js";
import type { NetDevice, StackPort } from "../../net/device.js";
import { ExternalPort, type FrameSink, type InputScheduler } from "../../net/external-port.js";
import { NetNamespace } from "../../net/stack/namespace.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { NUD_VALID } from "../../net/stack/neighbour.js";
import { VethDevice } from "../../net/veth.js";
import type { Simulator } from "../../engine/simulator.js";
import { EtherType } from "../../wire/ethernet.js";
import { readIPv4 } from "../../util/ip.js";
import type { MacChooser } from "./frames.js";

/** "transmit": the device sends the frame (pod eth0); "receive": the device gets it from its medium (node NIC). */
export type InjectDirection = "transmit" | "receive";

export interface ReplayPoint {
  /** As the user named it: web/test, node/worker31.cyh.cloud, node/worker31.cyh.cloud/tunl0. */
  readonly label: string;
  readonly device: NetDevice;
  readonly direction: InjectDirection;
}

/** Puts each injected frame at the simulated time the replay chose for its record. */
export class ReplayClock implements InputScheduler {
  /** Simulated time of the record being injected. */
  at = 0;
  /** Sees each admitted packet (the ExternalPort passes its SkBuff) before it is scheduled. */
  onSchedule: (arg: unknown) => void = () => {};
  constructor(private readonly sim: Simulator) {}

  inject<A>(fn: (arg: A) => void, arg: A): number {
    this.onSchedule(arg);
    return this.sim.scheduleAt(this.at, fn, arg);
  }
}

/** Nothing is ever transmitted on the injection port itself (it has no wire); a send is refused. */
const NO_SINK: FrameSink = { send: () => false, lastSendError: "the replay injection port sends nothing" };

/** The port's "stack": hands an admitted frame to the point's device in the point's direction. */
class PointEntry implements StackPort {
  readonly name: string;
  readonly nodeName: string;

  constructor(private readonly point: ReplayPoint) {
    this.name = `replay into ${point.label}`;
    this.nodeName = point.device.nodeName;
  }

  input(_dev: NetDevice, skb: SkBuff): void {
    if (this.point.direction === "transmit") this.point.device.transmit(skb);
    else this.point.device.receive(skb);
  }

  deviceByIndex(ifindex: number): NetDevice | undefined {
    return ifindex === this.point.device.ifindex ? this.point.device : undefined;
  }
}

/** The ExternalPort frames enter through, wired to the point's device. */
export function openInjectionPort(point: ReplayPoint, clock: ReplayClock): ExternalPort {
  const dev = point.device;
  const port = new ExternalPort(dev.world, `replay:${dev.name}`, dev.mac, dev.mtu, NO_SINK, clock);
  port.stack = new PointEntry(point);
  return port;
}

/**
 * The addresses of an Ethernet header built for a packet without one. Transmit: from the device to the
 * next hop the device's namespace would resolve (its neighbour entry, else the veth peer, else the
 * underlay owner of the next hop, else the gateway router). Receive: to the device, from the veth peer
 * or the underlay owner of the source address, else the gateway router (traffic from beyond it).
 */
export function macChooser(rt: ClusterRuntime, point: ReplayPoint): MacChooser {
  const dev = point.device;
  const ns = namespaceOf(dev);
  const routerMac = rt.underlay.router.eth0.mac;
  const underlayMac = (ip: number): number | null => {
    if (ip === rt.underlay.router.ip) return routerMac;
    for (const n of rt.nodes.values()) if (n.ip === ip) return n.eth0.mac;
    for (const h of rt.underlay.hosts.values()) if (h.onUnderlay && h.ip === ip) return h.eth0.mac;
    return null;
  };
  const peerMac = dev instanceof VethDevice ? dev.peer.mac : null;
  if (point.direction === "receive") {
    return (etherType, l3, off) => {
      const src = etherType === EtherType.IPV4 && l3.length >= off + 20 ? readIPv4(l3, off + 12) : -1;
      return { dst: dev.mac, src: peerMac ?? (src >= 0 ? underlayMac(src) : null) ?? routerMac };
    };
  }
  return (etherType, l3, off) => {
    let dst: number | null = null;
    if (etherType === EtherType.IPV4 && l3.length >= off + 20 && ns !== null) {
      const to = readIPv4(l3, off + 16);
      const route = ns.routes.lookup(to);
      const hop = route === null ? to : route.via !== 0 ? route.via : to;
      const n = ns.neigh.lookup(dev, hop);
      dst = n !== undefined && (n.state & NUD_VALID) !== 0 ? n.mac : (peerMac ?? underlayMac(hop));
    }
    return { src: dev.mac, dst: dst ?? peerMac ?? routerMac };
  };
}

function namespaceOf(dev: NetDevice): NetNamespace | null {
  return dev.stack instanceof NetNamespace ? dev.stack : null;
}
