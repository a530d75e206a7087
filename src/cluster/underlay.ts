// The physical network under the cluster: one L2 segment modelled as a plain switch (a bridge without
// a stack), every node's eth0 on its own Link (the Cluster's bandwidth, latency and MTU) to a switch
// port, external hosts on the segment the same way, and a gateway router at the underlay gateway
// address; an external host outside the underlay subnet sits behind that router on a link of its own,
// and everything else the router forwards leaves the model through its uplink (the lab's way out to the
// internet), where nothing answers: a packet to a private address nobody routes is silently lost upstream.
import { BridgeDevice } from "../net/bridge.js";
import { EthernetDevice } from "../net/ethernet.js";
import { ExternalPort } from "../net/external-port.js";
import { DEFAULT_LINK, Link, type LinkParams } from "../net/link.js";
import { NetNamespace } from "../net/stack/namespace.js";
import type { NetWorld } from "../net/world.js";
import type { NetworkModel, NodeModel } from "../k8s/cluster-model.js";
import { randomMac } from "../cni/common/macs.js";
import type { SeededRng } from "../util/rng.js";

export interface Attachment {
  readonly ns: NetNamespace;
  readonly eth0: EthernetDevice;
  readonly link: Link;
  readonly ip: number;
}

export interface ExternalHost extends Attachment {
  readonly name: string;
  /** True when the host sits on the underlay segment; false = behind the gateway router. */
  readonly onUnderlay: boolean;
}

export interface Underlay {
  readonly switch: BridgeDevice;
  readonly params: LinkParams;
  readonly nodes: Map<string, Attachment>;
  readonly hosts: Map<string, ExternalHost>;
  /** The router at the gateway address (ip_forward on). */
  readonly router: Attachment;
  /** The router's way out of the model: its default route; frames sent there count as delivered externally. */
  readonly uplink: ExternalPort;
}

/** The upstream next hop of the gateway's default route (TEST-NET-2, never a cluster address) and its MAC. */
const UPSTREAM_IP = 0xc6336401; // 198.51.100.1
const UPSTREAM_MAC = 0x02005e00fe01;
const UPLINK_MAC = 0x02005e00fe00;

/** The gateway's uplink: a default route out of the model through a port that takes every frame and answers none. */
function addUplink(world: NetWorld, routerNs: NetNamespace, mtu: number): ExternalPort {
  const uplink = new ExternalPort(world, "uplink", UPLINK_MAC, mtu, { send: () => true }, { inject: () => 0 });
  routerNs.addDevice(uplink);
  routerNs.routes.add({ dst: 0, prefixLen: 0, via: UPSTREAM_IP, dev: uplink, onlink: true });
  routerNs.neigh.addStatic(uplink, UPSTREAM_IP, UPSTREAM_MAC);
  return uplink;
}

export function buildUnderlay(world: NetWorld, rng: SeededRng, network: NetworkModel, nodes: readonly NodeModel[]): Underlay {
  const u = network.underlay;
  const params: LinkParams = { ...DEFAULT_LINK, bandwidthBps: u.link.bandwidthBps, latencyNs: u.link.latencyNs, mtu: u.link.mtu, queueBytes: u.link.queueBytes };
  const sw = new BridgeDevice(world, "underlay", randomMac(rng), { macSet: true, mtu: u.link.mtu });
  let port = 0;
  const attach = (ns: NetNamespace, ip: number, prefixLen: number): Attachment => {
    const eth0 = new EthernetDevice(world, "eth0", randomMac(rng), u.link.mtu);
    const swPort = new EthernetDevice(world, `swp${++port}`, randomMac(rng), u.link.mtu);
    const link = new Link(world, eth0, swPort, params);
    eth0.link = link;
    swPort.link = link;
    sw.addPort(swPort);
    ns.addDevice(eth0);
    ns.addAddress(eth0, ip, prefixLen);
    return { ns, eth0, link, ip };
  };
  const len = u.subnet.prefixLength;
  const routerNs = new NetNamespace(world, "gateway", "gateway");
  routerNs.sysctl.ipForward = true;
  const router = attach(routerNs, u.gateway, len);
  const nodeMap = new Map<string, Attachment>();
  for (const n of nodes) {
    const ns = new NetNamespace(world, n.name, n.name);
    const a = attach(ns, n.ipInt ?? 0, len);
    ns.routes.add({ dst: 0, prefixLen: 0, via: u.gateway, dev: a.eth0 });
    nodeMap.set(n.name, a);
  }
  const hosts = new Map<string, ExternalHost>();
  let uplinks = 0;
  for (const h of network.externalHosts) {
    const ns = new NetNamespace(world, h.name, h.name);
    if (h.onUnderlay) {
      const a = attach(ns, h.ipInt, len);
      ns.routes.add({ dst: 0, prefixLen: 0, via: u.gateway, dev: a.eth0 });
      hosts.set(h.name, { ...a, name: h.name, onUnderlay: true });
      continue;
    }
    // Beyond the gateway: a point-to-point link router ethN <-> host eth0.
    const hostEth = new EthernetDevice(world, "eth0", randomMac(rng), u.link.mtu);
    const routerEth = new EthernetDevice(world, `eth${++uplinks}`, randomMac(rng), u.link.mtu);
    const link = new Link(world, hostEth, routerEth, params);
    hostEth.link = link;
    routerEth.link = link;
    ns.addDevice(hostEth);
    ns.addAddress(hostEth, h.ipInt, 32);
    ns.routes.add({ dst: u.gateway, prefixLen: 32, dev: hostEth });
    ns.routes.add({ dst: 0, prefixLen: 0, via: u.gateway, dev: hostEth });
    routerNs.addDevice(routerEth);
    routerNs.routes.add({ dst: h.ipInt, prefixLen: 32, dev: routerEth });
    hosts.set(h.name, { ns, eth0: hostEth, link, ip: h.ipInt, name: h.name, onUnderlay: false });
  }
  const uplink = addUplink(world, routerNs, u.link.mtu);
  return { switch: sw, params, nodes: nodeMap, hosts, router, uplink };
}

/** The MAC of the underlay interface holding ip (a node, a host on the segment, the gateway). */
export function underlayMac(u: Underlay, ip: number): number | undefined {
  if (u.router.ip === ip) return u.router.eth0.mac;
  for (const a of u.nodes.values()) if (a.ip === ip) return a.eth0.mac;
  for (const h of u.hosts.values()) if (h.ip === ip && h.onUnderlay) return h.eth0.mac;
  return undefined;
}
