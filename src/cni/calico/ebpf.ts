// Calico's eBPF dataplane: the datapath programs attached at every cali veth (from/to-container), the
// node's eth0 (from/to-netdev) and the tunnel device (from/to-overlay), reading one node's maps: the
// policy compiler's ipcache and per-pod policy maps, local endpoints, load balancing filled from
// Services and EndpointSlices (kube-proxy is replaced), the tunnel map (blocks -> node) and a FIB of the
// underlay neighbours. NodePort traffic for a backend on another node is tunnelled there with the
// client address kept (NodePortMode.TUNNEL), established flows are not re-checked (Calico's conntrack).
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import { attachEndpoint, attachHost, attachOverlay, type AttachOptions } from "../../../datapath/attach.js";
import { datapathConfig, EncapKind, NodePortMode, PolicyCtMode } from "../../../datapath/lib/config.js";
import { createDatapathMaps, type DatapathMaps } from "../../../datapath/lib/maps.js";
import { ServiceFlag } from "../../../datapath/maps/lb.js";
import { Direction } from "../../../datapath/maps/policy.js";
import type { KubeObject } from "../../k8s/types.js";
import { buildEndpointsMap } from "../../kubeproxy/endpoint-info.js";
import { servicePorts, servicePortKey } from "../../kubeproxy/service-port.js";
import type { NetDevice } from "../../net/device.js";
import { explainAt, formatCompiled } from "../../policy/explain.js";
import { parseIPv4 } from "../../util/ip.js";
import type { CniContext, CniNode } from "../plugin.js";
import { CALICO_VXLAN_PORT, CALICO_VXLAN_VNI } from "./constants.js";
import { CalicoMode } from "./routes.js";

const PROTO: Readonly<Record<string, number>> = { tcp: 6, udp: 17, sctp: 132 };

interface EbpfEndpoint {
  readonly podKey: string;
  readonly ip: number;
  readonly hostVeth: NetDevice;
  readonly podMac: number;
  readonly id: number;
}

interface EbpfNode {
  readonly node: CniNode;
  readonly maps: DatapathMaps;
  readonly endpoints: Map<number, EbpfEndpoint>;
  readonly options: AttachOptions;
}

export class CalicoEbpf {
  private readonly nodes = new Map<string, EbpfNode>();
  private nextEndpointId = 1;

  constructor(
    private readonly ctx: CniContext,
    private readonly mode: CalicoMode,
  ) {
    // Identities change with labels and policies: keep every endpoint's identity and map current.
    ctx.policy.world.subscribe(() => this.refreshEndpoints());
  }

  setupNode(node: CniNode, overlay: NetDevice | null): void {
    const compiled = this.ctx.policy;
    const own = createDatapathMaps({ ct: 16384, snat: 16384, lb: 4096, endpoints: 1024, ipcache: 16, tunnel: 1024, fib: 1024 });
    // The ipcache is the policy compiler's for this node (it may create it after this call).
    const maps: DatapathMaps = {
      ct: own.ct,
      endpoints: own.endpoints,
      lb: own.lb,
      tunnel: own.tunnel,
      snat: own.snat,
      fib: own.fib,
      get ipcache() {
        return compiled.ipcacheOf(node.name) ?? own.ipcache;
      },
    };
    const cni = this.ctx.network.cni;
    const encap = this.mode === CalicoMode.IPIP ? EncapKind.IPIP : this.mode === CalicoMode.NONE ? EncapKind.NONE : EncapKind.VXLAN;
    const config = datapathConfig({
      nodeName: node.name,
      nodeIps: [node.ip],
      routerMac: 0xeeeeeeeeeeee,
      encap,
      tunnelPort: CALICO_VXLAN_PORT,
      vni: CALICO_VXLAN_VNI,
      policyCtMode: PolicyCtMode.ACCEPT_ESTABLISHED,
      nodePortMode: NodePortMode.TUNNEL,
      masquerade: true,
      nonMasqueradeAddr: cni.podCIDR.address,
      nonMasqueradeLen: cni.podCIDR.prefixLength,
    });
    const rng = node.ns.rng.fork();
    const options: AttachOptions = {
      maps,
      config,
      random: () => rng.nextU32(),
      explain: (ref) => {
        const ep = compiled.endpointByIp(ref.endpointIp);
        if (ep === undefined) return undefined;
        const e = explainAt(compiled, ep.key, ref.direction === Direction.INGRESS ? Direction.INGRESS : Direction.EGRESS, ref.peerIp, ref.proto, ref.port);
        return e === null ? undefined : formatCompiled(e);
      },
    };
    attachHost(node.uplink, options);
    if (overlay !== null) attachOverlay(overlay, options);
    this.nodes.set(node.name, { node, maps, endpoints: new Map(), options });
  }

  /** The FIB: every other node and external host on the segment by its MAC, the rest via the gateway. */
  fillFib(macOf: (ip: number) => number | undefined): void {
    const u = this.ctx.network.underlay;
    for (const n of this.nodes.values()) {
      const own = n.node.uplink.mac;
      const gw = macOf(u.gateway);
      if (gw !== undefined) n.maps.fib.upsertV4(0, 0, n.node.uplink.ifindex, own, gw);
      for (const other of this.ctx.nodes) {
        const mac = macOf(other.ip);
        if (other !== n.node && mac !== undefined) n.maps.fib.upsertV4(other.ip, 32, n.node.uplink.ifindex, own, mac);
      }
      for (const h of this.ctx.network.externalHosts) {
        const mac = h.onUnderlay ? macOf(h.ipInt) : gw;
        if (mac !== undefined) n.maps.fib.upsertV4(h.ipInt, 32, n.node.uplink.ifindex, own, mac);
      }
    }
  }

  /** Blocks affine to other nodes, for the tunnel map. */
  setBlocks(blocks: readonly { prefix: { address: number; prefixLength: number }; node: string }[]): void {
    for (const n of this.nodes.values()) {
      for (const b of blocks) {
        const owner = this.ctx.nodes.find((x) => x.name === b.node);
        if (owner === undefined || owner === n.node) continue;
        n.maps.tunnel.upsertV4(b.prefix.address, b.prefix.prefixLength, owner.ip);
      }
    }
  }

  addEndpoint(nodeName: string, podKey: string, ip: number, hostVeth: NetDevice, podMac: number): void {
    const n = this.nodes.get(nodeName);
    if (n === undefined) return;
    attachEndpoint(hostVeth, n.options);
    n.endpoints.set(ip, { podKey, ip, hostVeth, podMac, id: this.nextEndpointId++ });
    this.writeEndpoint(n, n.endpoints.get(ip)!);
  }

  removeEndpoint(nodeName: string, ip: number): void {
    const n = this.nodes.get(nodeName);
    if (n === undefined || !n.endpoints.delete(ip)) return;
    n.maps.endpoints.delete(ip);
  }

  /** kube-proxy replacement: every node's LB maps from the Services and their EndpointSlices. */
  syncServices(services: readonly KubeObject<"Service">[], slices: readonly EndpointSlice[]): void {
    for (const n of this.nodes.values()) {
      const lb = n.maps.lb;
      const endpoints = buildEndpointsMap(slices, n.node.name);
      let revNat = 1;
      let backendId = 1;
      for (const svc of services) {
        for (const port of servicePorts(svc).ports) {
          const proto = PROTO[port.protocol] ?? 6;
          const all = (endpoints.get(servicePortKey(port.nameString, port.protocol)) ?? []).filter((e) => e.ready);
          const ids = (list: typeof all): number[] =>
            list.map((e) => {
              const id = backendId++;
              lb.upsertBackend(id, parseIPv4(e.ip) ?? 0, e.port, proto);
              return id;
            });
          const vip = parseIPv4(port.clusterIP);
          if (vip !== null && vip !== 0) {
            const index = revNat++;
            lb.upsertRevNat(index, vip, port.port);
            lb.upsertService({ vip, port: port.port, proto, revNatIndex: index, flags: all.length === 0 ? ServiceFlag.REJECT_NO_BACKEND : 0, backendIds: ids(all) });
          }
          if (port.nodePort !== 0) {
            const index = revNat++;
            const usable = port.externalPolicyLocal ? all.filter((e) => e.isLocal) : all;
            lb.upsertRevNat(index, 0, port.nodePort);
            lb.upsertService({ vip: 0, port: port.nodePort, proto, revNatIndex: index, flags: ServiceFlag.NODEPORT | (usable.length === 0 ? ServiceFlag.REJECT_NO_BACKEND : 0), backendIds: ids(usable) });
          }
        }
      }
    }
  }

  private refreshEndpoints(): void {
    for (const n of this.nodes.values()) for (const ep of n.endpoints.values()) this.writeEndpoint(n, ep);
  }

  private writeEndpoint(n: EbpfNode, ep: EbpfEndpoint): void {
    const compiled = this.ctx.policy.endpoint(ep.podKey);
    n.maps.endpoints.upsert({ ip: ep.ip, ifindex: ep.hostVeth.ifindex, id: ep.id, identity: compiled?.identity ?? 0, mac: ep.podMac, policy: compiled?.map ?? null });
  }
}
