// One VTEP host for the VXLAN tests, addressed like the tcpdump vxlan.pcap capture: a namespace
// whose eth0 (36:dc:85:1e:b3:40, 192.168.203.1/24) reaches 192.168.202.1 (00:16:3e:08:71:cf) on-link,
// plus a VXLAN device opened on it. What eth0 transmits goes over a link to a sink.

import { EthernetDevice } from "../../../src/net/ethernet.js";
import { DEFAULT_LINK, Link } from "../../../src/net/link.js";
import type { NetWorld } from "../../../src/net/world.js";
import { NetNamespace } from "../../../src/net/stack/namespace.js";
import { VxlanDevice, type VxlanOptions } from "../../../src/net/vxlan.js";
import { parseMac } from "../../../src/util/mac.js";
import { Capture, ip, mac, SinkStack } from "./helpers.js";

export const LOCAL_VTEP = ip("192.168.203.1");
export const REMOTE_VTEP = ip("192.168.202.1");
export const LOCAL_MAC = parseMac("36:dc:85:1e:b3:40")!;
export const REMOTE_MAC = parseMac("00:16:3e:08:71:cf")!;

export interface Vtep {
  readonly ns: NetNamespace;
  readonly eth0: EthernetDevice;
  readonly vx: VxlanDevice;
  readonly sink: SinkStack;
  readonly cap: Capture;
}

export function buildVtep(world: NetWorld, options: VxlanOptions, vxMac = mac(0xee)): Vtep {
  const ns = new NetNamespace(world, "vtep1", "node1");
  const eth0 = new EthernetDevice(world, "eth0", LOCAL_MAC, 1500);
  const wire = new EthernetDevice(world, "wire", REMOTE_MAC, 1500);
  const sink = new SinkStack(world);
  wire.stack = sink;
  const link = new Link(world, eth0, wire, { ...DEFAULT_LINK, latencyNs: 1000 });
  eth0.link = link;
  wire.link = link;
  ns.addDevice(eth0);
  ns.addAddress(eth0, LOCAL_VTEP, 24);
  ns.routes.add({ dst: ip("192.168.202.0"), prefixLen: 24, dev: eth0 });
  ns.neigh.addStatic(eth0, REMOTE_VTEP, REMOTE_MAC);
  const vx = new VxlanDevice(world, "vxlan0", vxMac, options);
  ns.addDevice(vx);
  const opened = vx.open();
  if (!opened.ok) throw new Error(opened.error.reason);
  return { ns, eth0, vx, sink, cap: new Capture(eth0, vx) };
}
