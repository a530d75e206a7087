// A node with a CNI bridge as docker0/cni0 are set up: cni0 in the node namespace with the gateway
// address 10.244.0.1/24, and pods (own namespaces) on veth pairs whose host ends are bridge ports.

import { BridgeDevice } from "../../../src/net/bridge.js";
import { VethDevice } from "../../../src/net/veth.js";
import type { NetWorld } from "../../../src/net/world.js";
import { NetNamespace } from "../../../src/net/stack/namespace.js";
import { Capture, ip, mac } from "./helpers.js";

export interface Pod {
  readonly ns: NetNamespace;
  readonly eth0: VethDevice;
  readonly hostVeth: VethDevice;
  readonly addr: number;
}

export interface BridgeNode {
  readonly node: NetNamespace;
  readonly cni0: BridgeDevice;
  readonly pods: Pod[];
  readonly cap: Capture;
}

export const GATEWAY = ip("10.244.0.1");
export const GATEWAY_MAC = mac(0xb0);

export function buildBridgeNode(world: NetWorld, podCount: number): BridgeNode {
  const node = new NetNamespace(world, "node1", "node1");
  const cni0 = new BridgeDevice(world, "cni0", GATEWAY_MAC, { macSet: true });
  node.addDevice(cni0);
  node.addAddress(cni0, GATEWAY, 24);
  const pods: Pod[] = [];
  for (let i = 1; i <= podCount; i++) {
    const ns = new NetNamespace(world, `pod${i}`, "node1");
    const [eth0, hostVeth] = VethDevice.pair(world, "eth0", mac(i), `veth${i}`, mac(0x10 + i));
    ns.addDevice(eth0);
    const addr = GATEWAY + i;
    ns.addAddress(eth0, addr, 24);
    ns.routes.add({ dst: 0, prefixLen: 0, via: GATEWAY, dev: eth0 });
    node.addDevice(hostVeth);
    const added = cni0.addPort(hostVeth);
    if (!added.ok) throw new Error(added.error.reason);
    pods.push({ ns, eth0, hostVeth, addr });
  }
  const cap = new Capture(cni0, ...pods.map((p) => p.eth0));
  return { node, cni0, pods, cap };
}
