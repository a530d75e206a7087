// A hand-built two-node cluster for accounting tests: each node has eth0 on an underlay switch, a
// cni0 bridge and one pod on a veth; pod subnets are reached by plain routing (host-gw), over a
// flannel-style VXLAN device, or over Calico-style tunl0 (IPIP). Returns it as a MeteredCluster.
import { BridgeDevice } from "../../src/net/bridge.js";
import { EthernetDevice } from "../../src/net/ethernet.js";
import { IpipDevice } from "../../src/net/ipip.js";
import { DEFAULT_LINK, Link } from "../../src/net/link.js";
import { VethDevice } from "../../src/net/veth.js";
import { VxlanDevice } from "../../src/net/vxlan.js";
import type { NetWorld } from "../../src/net/world.js";
import { NetNamespace } from "../../src/net/stack/namespace.js";
import type { MeteredCluster, MeteredNode, MeteredPod } from "../../src/metrics/index.js";
import type { NetDevice } from "../../src/net/device.js";
import { ip, mac } from "../net/l2/helpers.js";

export const PathMode = { HOST_GW: "host-gw", VXLAN: "vxlan", IPIP: "ipip" } as const;
export type PathMode = (typeof PathMode)[keyof typeof PathMode];

export interface TestNode {
  readonly name: string;
  readonly ns: NetNamespace;
  readonly pod: NetNamespace;
  readonly podAddr: number;
  readonly hostVeth: NetDevice;
}

export const nodeIp = (n: number): number => ip(`192.168.1.${10 + n}`);
export const podSubnet = (n: number): number => ip(`10.244.${n}.0`);

export function twoNodes(world: NetWorld, mode: PathMode): { nodes: TestNode[]; cluster: MeteredCluster } {
  const underlay = new BridgeDevice(world, "underlay", mac(0xfff), { macSet: true });
  const nodes: TestNode[] = [];
  const tunnels: (VxlanDevice | IpipDevice | null)[] = [];
  for (let n = 1; n <= 2; n++) {
    const name = `node${n}`;
    const ns = new NetNamespace(world, name, name);
    ns.sysctl.ipForward = true;
    const eth0 = new EthernetDevice(world, "eth0", mac(0xa00 + n), 1500);
    const swPort = new EthernetDevice(world, `swp${n}`, mac(0xc00 + n), 1500);
    const link = new Link(world, eth0, swPort, { ...DEFAULT_LINK, latencyNs: 20_000 });
    eth0.link = link;
    swPort.link = link;
    underlay.addPort(swPort);
    ns.addDevice(eth0);
    ns.addAddress(eth0, nodeIp(n), 24);
    const cni0 = new BridgeDevice(world, "cni0", mac(0xb00 + n), { macSet: true });
    ns.addDevice(cni0);
    ns.addAddress(cni0, podSubnet(n) + 1, 24);
    const pod = new NetNamespace(world, `pod${n}`, name);
    const [podEth, hostVeth] = VethDevice.pair(world, "eth0", mac(0xd00 + n), `veth${n}`, mac(0xe00 + n));
    pod.addDevice(podEth);
    pod.addAddress(podEth, podSubnet(n) + 2, 24);
    pod.routes.add({ dst: 0, prefixLen: 0, via: podSubnet(n) + 1, dev: podEth });
    ns.addDevice(hostVeth);
    cni0.addPort(hostVeth);
    let tunnel: VxlanDevice | IpipDevice | null = null;
    if (mode === PathMode.VXLAN) {
      tunnel = new VxlanDevice(world, "flannel.1", mac(0xf00 + n), { vni: 1, dstPort: 8472, learning: false, local: nodeIp(n) });
      ns.addDevice(tunnel);
      ns.addAddress(tunnel, podSubnet(n), 32);
    } else if (mode === PathMode.IPIP) {
      tunnel = new IpipDevice(world);
      ns.addDevice(tunnel);
      ns.addAddress(tunnel, podSubnet(n), 32);
    }
    if (tunnel !== null) {
      const opened = tunnel.open();
      if (!opened.ok) throw new Error(opened.error.reason);
    }
    tunnels.push(tunnel);
    nodes.push({ name, ns, pod, podAddr: podSubnet(n) + 2, hostVeth });
  }
  for (let a = 0; a < 2; a++) {
    const b = 1 - a;
    const here = nodes[a]!.ns;
    const tunnel = tunnels[a];
    if (mode === PathMode.HOST_GW) here.routes.add({ dst: podSubnet(b + 1), prefixLen: 24, via: nodeIp(b + 1) });
    else if (tunnel instanceof VxlanDevice) {
      here.routes.add({ dst: podSubnet(b + 1), prefixLen: 24, via: podSubnet(b + 1), dev: tunnel, onlink: true });
      here.neigh.addStatic(tunnel, podSubnet(b + 1), mac(0xf00 + b + 1));
      tunnel.setRemote(mac(0xf00 + b + 1), nodeIp(b + 1));
    } else if (tunnel instanceof IpipDevice) {
      here.routes.add({ dst: podSubnet(b + 1), prefixLen: 24, via: nodeIp(b + 1), dev: tunnel, onlink: true });
    }
  }
  const meteredNodes: MeteredNode[] = nodes.map((n) => ({
    name: n.name,
    labels: { "kubernetes.io/hostname": n.name },
    allocatable: { cpuMilli: 2000, memoryBytes: 4 * 1024 ** 3 },
    reporting: true,
    ns: n.ns,
    tcp: null,
    maps: null,
  }));
  const meteredPods: MeteredPod[] = nodes.map((n, i) => ({
    uid: `uid-${i}`,
    namespace: "default",
    name: `pod${i + 1}`,
    nodeName: n.name,
    labels: {},
    containers: ["app"],
    startedAtNs: 0,
    ns: n.pod,
    hostInterface: n.hostVeth,
    tcp: null,
    policyMap: null,
    usage: null,
    requestsServed: () => 0,
  }));
  return { nodes, cluster: { nodes: () => meteredNodes, pods: () => meteredPods } };
}
