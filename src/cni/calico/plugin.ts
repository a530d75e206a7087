// The Calico plugin: block IPAM with node affinity, one routed cali veth per pod, tunl0 (ipip) or
// vxlan.calico (VNI 4096, port 4789) or plain routing (none) between nodes, blackhole routes for the
// node's own blocks, routes to other nodes' blocks installed because BIRD learned them over the BGP
// full mesh (AS 64512), natOutgoing for the pool, and NetworkPolicy in the iptables personality; or,
// with `dataplane: ebpf`, the datapath programs and kube-proxy replacement of ebpf.ts.
import { IpipDevice } from "../../net/ipip.js";
import { RouteType } from "../../net/stack/route-table.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { VxlanDevice } from "../../net/vxlan.js";
import { err, ok, type Result } from "../../util/result.js";
import { randomMac } from "../common/macs.js";
import { IptablesPolicy } from "../common/iptables-policy.js";
import { deletePodVeth, type PodVeth } from "../common/veth.js";
import { CalicoBlockIpam } from "../ipam/calico-blocks.js";
import { formatPrefix, type Prefix4 } from "../ipam/prefix.js";
import { PolicyEnforcement, type CniContext, type CniError, type CniNode, type CniPlugin, type CniPodRequest, type CniPodResult } from "../plugin.js";
import { BgpSpeaker } from "./bgp/speaker.js";
import { BgpTimers } from "./bgp/timers.js";
import type { BgpTransport } from "./bgp/transport.js";
import { calicoRouteSink, CalicoMode, type VtepInfo } from "./routes.js";
import { CALICO_VXLAN_PORT, CALICO_VXLAN_VNI } from "./constants.js";
import { CalicoEbpf } from "./ebpf.js";
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import type { KubeObject } from "../../k8s/types.js";
import { wireCalicoWorkload } from "./workload.js";

export { CALICO_VXLAN_PORT, CALICO_VXLAN_VNI };

export interface CalicoOptions {
  readonly mode: CalicoMode;
  /** iptables (felix's chains) or ebpf (datapath programs, kube-proxy replaced). */
  readonly dataplane: "iptables" | "ebpf";
  /** MAC of an underlay neighbour (node, host, gateway) by address: the eBPF FIB's neighbour entries. */
  readonly underlayMac: (ip: number) => number | undefined;
  /** TCP port-179 transport of a node's BGP speaker; null = no BGP. */
  readonly bgpTransport: ((node: CniNode) => BgpTransport) | null;
}

interface CalicoNodeState {
  readonly node: CniNode;
  readonly tunl0: IpipDevice | null;
  readonly vxlan: VxlanDevice | null;
  readonly tunnelAddress: number;
  readonly policy: IptablesPolicy | null;
  readonly speaker: BgpSpeaker | null;
  /** Blocks with a blackhole route and announced over BGP. */
  readonly blocks: Set<string>;
}

interface CalicoPod {
  readonly node: CalicoNodeState;
  readonly ip: number;
  readonly ns: NetNamespace;
  readonly veth: PodVeth;
  readonly handle: string;
}

export class CalicoPlugin implements CniPlugin {
  readonly name: string;
  readonly policyEnforcement: PolicyEnforcement;
  readonly replacesKubeProxy: boolean;
  readonly podMtu: number;
  private readonly ebpf: CalicoEbpf | null;
  readonly ipam: CalicoBlockIpam;
  readonly timers: BgpTimers;
  private readonly nodes = new Map<string, CalicoNodeState>();
  private readonly pods = new Map<string, CalicoPod>();
  private readonly vteps = new Map<number, VtepInfo>();
  private readonly problems: string[] = [];

  constructor(
    private readonly ctx: CniContext,
    readonly options: CalicoOptions,
  ) {
    const cni = ctx.network.cni;
    this.name = `calico-${options.mode}${options.dataplane === "ebpf" ? "-ebpf" : ""}`;
    this.policyEnforcement = options.dataplane === "ebpf" ? PolicyEnforcement.EBPF : PolicyEnforcement.IPTABLES;
    this.replacesKubeProxy = options.dataplane === "ebpf";
    this.ebpf = options.dataplane === "ebpf" ? new CalicoEbpf(ctx, options.mode) : null;
    this.podMtu = cni.mtu;
    this.ipam = new CalicoBlockIpam(cni.podCIDR, cni.blockSize ?? 26);
    this.timers = new BgpTimers(ctx.world.sim);
  }

  get mode(): CalicoMode {
    return this.options.mode;
  }

  describe(): string[] {
    const cni = this.ctx.network.cni;
    const encap = {
      ipip: "tunl0 (IPIP, protocol 4): routes `<block> via <node> dev tunl0 onlink`",
      vxlan: `vxlan.calico (VNI ${CALICO_VXLAN_VNI}, UDP ${CALICO_VXLAN_PORT}): routes via each node's VTEP address with static ARP and FDB entries`,
      vxlanCrossSubnet: "VXLAN only to nodes on another subnet, plain routes via eth0 on the same subnet",
      none: "no encapsulation: routes `<block> via <node> dev eth0` (BGP only)",
    }[this.mode];
    return [
      `IPAM: pool ${formatPrefix(cni.podCIDR)} in /${cni.blockSize} blocks with node affinity; blackhole route for each own block`,
      `pods: cali* veth (MAC ee:ee:ee:ee:ee:ee, proxy ARP), pod eth0 /32 with default via 169.254.1.1, host route <pod>/32 dev cali*; MTU ${this.podMtu}`,
      `between nodes: ${encap}`,
      "routes to other nodes' blocks: learned over a BGP full mesh (AS 64512, TCP 179), installed by BIRD",
      ...(this.ebpf === null
        ? [
            "natOutgoing: MASQUERADE from the pool to outside it",
            "NetworkPolicy: felix's iptables layout (raw/mangle cali-PREROUTING, FORWARD -> cali-FORWARD -> cali-from/to-wl-dispatch -> cali-fw-*/cali-tw-*, established accepted first in each)",
          ]
        : [
            "eBPF dataplane: programs at tc ingress/egress of every cali veth, eth0 and the tunnel device; natOutgoing as eBPF masquerade",
            "kube-proxy replaced: Services in the datapath's LB maps; NodePort to a remote backend is tunnelled there keeping the client address",
            "NetworkPolicy: eBPF personality (policy maps consulted by the programs; established flows not re-checked)",
          ]),
    ];
  }

  notices(): string[] {
    const out = [...this.problems];
    if (this.options.bgpTransport === null) out.push("calico: BGP is off (no transport), so no node learns the other nodes' blocks: pods are reachable only on their own node");
    return out;
  }

  setupNode(node: CniNode): Result<void, CniError> {
    const subject = `node ${node.name}`;
    const ns = node.ns;
    ns.sysctl.ipForward = true;
    let tunl0: IpipDevice | null = null;
    let vxlan: VxlanDevice | null = null;
    const purpose = this.mode === CalicoMode.IPIP ? "ipip-tunnel-addr" : "vxlan-tunnel-addr";
    let tunnelAddress = 0;
    if (this.mode !== CalicoMode.NONE) {
      const addr = this.ipam.assignNodeAddress(node.name, purpose);
      if (!addr.ok) return err({ subject, reason: addr.error.reason });
      tunnelAddress = addr.value;
    }
    const hostMtu = node.uplink.mtu;
    if (this.mode === CalicoMode.IPIP) {
      tunl0 = new IpipDevice(this.ctx.world, "tunl0", { mtu: hostMtu - 20 });
      const added = ns.addDevice(tunl0);
      if (!added.ok) return err({ subject, reason: added.error.reason });
      const opened = tunl0.open();
      if (!opened.ok) return err({ subject, reason: opened.error.reason });
      ns.addAddress(tunl0, tunnelAddress, 32);
    } else if (this.mode === CalicoMode.VXLAN || this.mode === CalicoMode.VXLAN_CROSS_SUBNET) {
      vxlan = new VxlanDevice(this.ctx.world, "vxlan.calico", randomMac(this.ctx.rng), {
        vni: CALICO_VXLAN_VNI,
        dstPort: CALICO_VXLAN_PORT,
        learning: false,
        local: node.ip,
        mtu: hostMtu - 50,
      });
      const added = ns.addDevice(vxlan);
      if (!added.ok) return err({ subject, reason: added.error.reason });
      const opened = vxlan.open();
      if (!opened.ok) return err({ subject, reason: opened.error.reason });
      ns.addAddress(vxlan, tunnelAddress, 32);
      this.vteps.set(node.ip, { nodeIp: node.ip, tunnelAddress, mac: vxlan.mac });
    }
    let policy: IptablesPolicy | null = null;
    if (this.ebpf === null) {
      policy = new IptablesPolicy(ns, this.ctx.policy, {
        prefix: "cali",
        vxlan: this.mode === CalicoMode.VXLAN || this.mode === CalicoMode.VXLAN_CROSS_SUBNET,
        ipip: this.mode === CalicoMode.IPIP,
      });
      policy.install();
      this.installNatOutgoing(ns);
    } else this.ebpf.setupNode(node, tunl0 ?? vxlan);
    const transport = this.options.bgpTransport?.(node) ?? null;
    const speaker =
      transport === null
        ? null
        : BgpSpeaker.create(
            this.ctx.world.sim,
            transport,
            { nodeName: node.name, routerId: node.ip, localAddress: node.ip },
            calicoRouteSink({
              mode: this.mode,
              ns,
              uplink: node.uplink,
              subnet: this.ctx.network.underlay.subnet,
              tunl0,
              vxlan,
              vtepOf: (ip) => this.vteps.get(ip),
              onError: (what) => this.problems.push(`calico on ${node.name}: ${what}`),
            }),
            this.timers,
          );
    this.nodes.set(node.name, { node, tunl0, vxlan, tunnelAddress, policy, speaker, blocks: new Set() });
    this.syncBlocks(node.name);
    return ok(undefined);
  }

  start(): Result<void, CniError> {
    this.ebpf?.fillFib(this.options.underlayMac);
    for (const a of this.nodes.values()) {
      if (a.speaker === null) continue;
      for (const b of this.nodes.values()) if (b !== a) a.speaker.addPeer(b.node.ip);
      a.speaker.start();
    }
    return ok(undefined);
  }

  /** The node's BGP speaker (null without a transport). */
  speaker(node: string): BgpSpeaker | null {
    return this.nodes.get(node)?.speaker ?? null;
  }

  /** True when every BGP session of every node is Established (vacuously true without BGP). */
  get converged(): boolean {
    for (const n of this.nodes.values()) if (n.speaker !== null && !n.speaker.converged) return false;
    return true;
  }

  setupPod(req: CniPodRequest): Result<CniPodResult, CniError> {
    const state = this.nodes.get(req.node.name);
    const subject = `pod ${req.key}`;
    if (state === undefined) return err({ subject, reason: `node ${req.node.name} is not set up` });
    const addr = this.ipam.assign({ pod: req.key, handle: req.handle, node: req.node.name, requested: req.requested });
    if (!addr.ok) return err({ subject: addr.error.subject, reason: addr.error.reason });
    const wired = wireCalicoWorkload(this.ctx.world, this.ctx.rng, state.node.ns, req.ns, req, addr.value, this.podMtu);
    if (!wired.ok) {
      this.ipam.release(req.handle);
      return wired;
    }
    this.syncBlocks(req.node.name);
    state.policy?.addEndpoint(wired.value.host, req.key);
    if (this.ebpf !== null) {
      this.ebpf.setBlocks(this.ipam.allBlocks());
      this.ebpf.addEndpoint(req.node.name, req.key, addr.value, wired.value.host, wired.value.pod.mac);
    }
    this.pods.set(req.key, { node: state, ip: addr.value, ns: req.ns, veth: wired.value, handle: req.handle });
    return ok({ ip: addr.value, podInterface: wired.value.pod, hostInterface: wired.value.host });
  }

  teardownPod(key: string): void {
    const p = this.pods.get(key);
    if (p === undefined) return;
    this.pods.delete(key);
    p.node.policy?.removeEndpoint(p.veth.host);
    this.ebpf?.removeEndpoint(p.node.node.name, p.ip);
    deletePodVeth(p.veth, p.ns, p.node.node.ns);
    this.ipam.release(p.handle);
  }

  nodeAddresses(node: string): number[] {
    const s = this.nodes.get(node);
    return s === undefined || s.tunnelAddress === 0 ? [] : [s.tunnelAddress];
  }

  /** Re-puts Calico's FORWARD/INPUT jumps first (after kube-proxy prepended its own). */
  reassertChains(): void {
    for (const n of this.nodes.values()) n.policy?.assertJumps();
  }

  syncServices(services: readonly KubeObject<"Service">[], slices: readonly EndpointSlice[]): void {
    this.ebpf?.syncServices(services, slices);
  }

  /** Blackhole route + BGP origination for every block that became affine to the node. */
  private syncBlocks(nodeName: string): void {
    const state = this.nodes.get(nodeName);
    if (state === undefined) return;
    for (const b of this.ipam.blocksOf(nodeName)) {
      const k = formatPrefix(b);
      if (state.blocks.has(k)) continue;
      state.blocks.add(k);
      state.node.ns.routes.replace({ dst: b.address, prefixLen: b.prefixLength, type: RouteType.BLACKHOLE, proto: "bird" });
      state.speaker?.originate({ prefix: b.address, length: b.prefixLength });
    }
  }

  /** Calico's natOutgoing for the pool: cali-nat-outgoing in nat POSTROUTING. */
  private installNatOutgoing(ns: NetNamespace): void {
    const nat = ns.netfilter.table("nat");
    const pool: Prefix4 = this.ctx.network.cni.podCIDR;
    const cidr = formatPrefix(pool);
    nat.newChain("cali-POSTROUTING");
    nat.newChain("cali-nat-outgoing");
    nat.append("cali-nat-outgoing", { src: cidr, dst: `!${cidr}`, comment: "natOutgoing: pod traffic leaving the pool", target: { kind: "MASQUERADE", randomFully: true } });
    nat.append("cali-POSTROUTING", { target: { kind: "JUMP", chain: "cali-nat-outgoing" } });
    nat.insert("POSTROUTING", { target: { kind: "JUMP", chain: "cali-POSTROUTING" } }, 1);
  }
}
