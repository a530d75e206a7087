// A plain L2 switch (a BridgeDevice without a namespace) with hosts on links to its ports: each host
// is an EthernetDevice whose received frames a SinkStack counts as delivered.

import { BridgeDevice, type BridgeOptions } from "../../../src/net/bridge.js";
import { EthernetDevice } from "../../../src/net/ethernet.js";
import { DEFAULT_LINK, Link } from "../../../src/net/link.js";
import type { NetWorld } from "../../../src/net/world.js";
import { Capture, mac, SinkStack } from "./helpers.js";

export interface SwitchFixture {
  readonly sw: BridgeDevice;
  readonly hosts: EthernetDevice[];
  readonly ports: EthernetDevice[];
  readonly sink: SinkStack;
  readonly cap: Capture;
}

export function buildSwitch(world: NetWorld, n: number, options: BridgeOptions = {}): SwitchFixture {
  const sw = new BridgeDevice(world, "sw0", mac(0xff00), options);
  const sink = new SinkStack(world);
  const hosts: EthernetDevice[] = [];
  const ports: EthernetDevice[] = [];
  for (let i = 1; i <= n; i++) {
    const h = new EthernetDevice(world, `h${i}`, mac(i), 1500);
    const p = new EthernetDevice(world, `sw0p${i}`, mac(0x100 + i), 1500);
    h.stack = sink;
    const link = new Link(world, h, p, { ...DEFAULT_LINK, latencyNs: 1000 });
    h.link = link;
    p.link = link;
    const added = sw.addPort(p);
    if (!added.ok) throw new Error(added.error.reason);
    hosts.push(h);
    ports.push(p);
  }
  return { sw, hosts, ports, sink, cap: new Capture(...hosts) };
}
