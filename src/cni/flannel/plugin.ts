// flannel (and canal, its Calico-policy variant): each node gets the next /24 of the pod network (in
// node order); vxlan mode creates flannel.1 (VNI 1, UDP 8472, nolearning) holding X.0/32 and programs,
// per other node, what flanneld does: `X.0/24 via X.0 dev flannel.1 onlink`, a permanent neighbour
// entry X.0 -> the remote flannel.1 MAC and an FDB entry MAC -> node IP; host-gw mode routes
// `X.0/24 via <nodeIP> dev eth0` and needs every node on one L2 segment. Pods hang off cni0 (.1/24,
// the bridge plugin with host-local IPAM, hairpin on); canal instead wires pods as Calico does (cali
// veths, /32 routes, proxy ARP) and enforces NetworkPolicy in the iptables personality. flannel alone
// enforces no NetworkPolicy and says so.
import { BridgeDevice } from "../../net/bridge.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { VxlanDevice } from "../../net/vxlan.js";
import { formatIPv4, ipv4InPrefix } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";
import { wireCalicoWorkload } from "../calico/workload.js";
import { IptablesPolicy } from "../common/iptables-policy.js";
import { randomMac } from "../common/macs.js";
import { createPodVeth, deletePodVeth, type PodVeth } from "../common/veth.js";
import { NodeSubnetIpam } from "../ipam/node-subnets.js";
import { formatPrefix } from "../ipam/prefix.js";
import { PolicyEnforcement, type CniContext, type CniError, type CniNode, type CniPlugin, type CniPodRequest, type CniPodResult } from "../plugin.js";
import { installFlannelRules } from "./masquerade.js";

export const FLANNEL_VNI = 1;
export const FLANNEL_VXLAN_PORT = 8472;

export const FlannelBackend = { VXLAN: "vxlan", HOST_GW: "host-gw" } as const;
export type FlannelBackend = (typeof FlannelBackend)[keyof typeof FlannelBackend];

export interface FlannelOptions {
  readonly backend: FlannelBackend;
  /** canal: Calico-style pod interfaces and Calico's iptables policy. */
  readonly canal: boolean;
}

interface FlannelNode {
  readonly node: CniNode;
  readonly vtep: VxlanDevice | null;
  readonly bridge: BridgeDevice | null;
  readonly policy: IptablesPolicy | null;
}

interface FlannelPod {
  readonly node: FlannelNode;
  readonly ns: NetNamespace;
  readonly veth: PodVeth;
  readonly handle: string;
}

export class FlannelPlugin implements CniPlugin {
  readonly name: string;
  readonly policyEnforcement: PolicyEnforcement;
  readonly podMtu: number;
  readonly ipam: NodeSubnetIpam;
  private readonly nodes = new Map<string, FlannelNode>();
  private readonly pods = new Map<string, FlannelPod>();

  constructor(
    private readonly ctx: CniContext,
    readonly options: FlannelOptions,
  ) {
    const cni = ctx.network.cni;
    this.name = `${options.canal ? "canal" : "flannel"}-${options.backend}`;
    this.policyEnforcement = options.canal ? PolicyEnforcement.IPTABLES : PolicyEnforcement.NONE;
    this.podMtu = cni.mtu;
    this.ipam = new NodeSubnetIpam(cni.podCIDR, cni.blockSize ?? 24, ctx.nodes.map((n) => n.name));
  }

  /** host-gw needs every node on the underlay's one L2 segment: an error naming the Cluster file otherwise. */
  static check(ctx: Pick<CniContext, "network" | "nodes">, backend: FlannelBackend, source: string): Result<void, CniError> {
    if (backend !== FlannelBackend.HOST_GW) return ok(undefined);
    const s = ctx.network.underlay.subnet;
    const off = ctx.nodes.filter((n) => !ipv4InPrefix(n.ip, s.address, s.prefixLength));
    if (off.length === 0) return ok(undefined);
    return err({
      subject: source,
      reason: `spec.cni.mode: host-gw requires all nodes on one L2 segment, but ${off.map((n) => `${n.name} (${formatIPv4(n.ip)})`).join(", ")} ${off.length === 1 ? "is" : "are"} outside ${s.text}`,
    });
  }

  describe(): string[] {
    const cni = this.ctx.network.cni;
    const lines = [`IPAM: node i gets the i-th /${cni.blockSize} of ${formatPrefix(cni.podCIDR)} (host-local inside it)`];
    lines.push(
      this.options.canal
        ? `pods: Calico-style cali* veths with /32 routes and proxy ARP; MTU ${this.podMtu}`
        : `pods: veth into cni0 (bridge, .1/${cni.blockSize} gateway, hairpin); MTU ${this.podMtu}`,
    );
    lines.push(
      this.options.backend === FlannelBackend.VXLAN
        ? `between nodes: flannel.1 (VXLAN VNI ${FLANNEL_VNI}, UDP ${FLANNEL_VXLAN_PORT}, nolearning): X.0/24 via X.0 dev flannel.1 onlink, static neighbour and FDB entries per node`
        : "between nodes: host-gw routes X.0/24 via <node IP> dev eth0 (one L2 segment)",
    );
    lines.push("masquerade: FLANNEL-POSTRTG in nat POSTROUTING; FLANNEL-FWD accepts the pod network in FORWARD");
    lines.push(this.options.canal ? "NetworkPolicy: Calico's iptables personality (cali-FORWARD)" : "NetworkPolicy: NOT enforced (flannel has no policy engine)");
    return lines;
  }

  notices(): string[] {
    return this.options.canal ? [] : ["flannel does not enforce NetworkPolicy: every NetworkPolicy in this cluster has NO effect (use canal or calico to enforce them)"];
  }

  setupNode(node: CniNode): Result<void, CniError> {
    const subject = `node ${node.name}`;
    const ns = node.ns;
    const subnet = this.ipam.subnetOf(node.name);
    if (subnet === undefined) return err({ subject, reason: "no pod subnet" });
    ns.sysctl.ipForward = true;
    let vtep: VxlanDevice | null = null;
    if (this.options.backend === FlannelBackend.VXLAN) {
      vtep = new VxlanDevice(this.ctx.world, "flannel.1", randomMac(this.ctx.rng), {
        vni: FLANNEL_VNI,
        dstPort: FLANNEL_VXLAN_PORT,
        learning: false,
        local: node.ip,
        mtu: node.uplink.mtu - 50,
      });
      const added = ns.addDevice(vtep);
      if (!added.ok) return err({ subject, reason: added.error.reason });
      const opened = vtep.open();
      if (!opened.ok) return err({ subject, reason: opened.error.reason });
      ns.addAddress(vtep, subnet.address, 32);
    }
    let bridge: BridgeDevice | null = null;
    let policy: IptablesPolicy | null = null;
    if (this.options.canal) {
      // canal's felix runs without IPIP or VXLAN of its own (flannel carries the traffic).
      policy = new IptablesPolicy(ns, this.ctx.policy, { prefix: "cali", vxlan: false, ipip: false });
      policy.install();
    } else {
      bridge = new BridgeDevice(this.ctx.world, "cni0", randomMac(this.ctx.rng), { macSet: true, mtu: this.podMtu });
      const added = ns.addDevice(bridge);
      if (!added.ok) return err({ subject, reason: added.error.reason });
      ns.addAddress(bridge, this.ipam.gatewayOf(node.name), subnet.prefixLength);
    }
    installFlannelRules(ns, this.ctx.network.cni.podCIDR, subnet);
    this.nodes.set(node.name, { node, vtep, bridge, policy });
    return ok(undefined);
  }

  /** What flanneld programs for every other node's lease. */
  start(): Result<void, CniError> {
    for (const a of this.nodes.values()) {
      for (const b of this.nodes.values()) {
        if (a === b) continue;
        const subnet = this.ipam.subnetOf(b.node.name)!;
        const r =
          a.vtep !== null && b.vtep !== null
            ? a.node.ns.routes.replace({ dst: subnet.address, prefixLen: subnet.prefixLength, via: subnet.address, dev: a.vtep, onlink: true })
            : a.node.ns.routes.replace({ dst: subnet.address, prefixLen: subnet.prefixLength, via: b.node.ip, dev: a.node.uplink });
        if (!r.ok) return err({ subject: `node ${a.node.name}`, reason: r.error.reason });
        if (a.vtep !== null && b.vtep !== null) {
          a.node.ns.neigh.addStatic(a.vtep, subnet.address, b.vtep.mac);
          a.vtep.setRemote(b.vtep.mac, b.node.ip);
        }
      }
    }
    return ok(undefined);
  }

  setupPod(req: CniPodRequest): Result<CniPodResult, CniError> {
    const state = this.nodes.get(req.node.name);
    const subject = `pod ${req.key}`;
    if (state === undefined) return err({ subject, reason: `node ${req.node.name} is not set up` });
    const addr = this.ipam.assign({ pod: req.key, handle: req.handle, node: req.node.name, requested: req.requested });
    if (!addr.ok) return err({ subject: addr.error.subject, reason: addr.error.reason });
    const wired = this.options.canal ? wireCalicoWorkload(this.ctx.world, this.ctx.rng, state.node.ns, req.ns, req, addr.value, this.podMtu) : this.wireBridged(state, req, addr.value);
    if (!wired.ok) {
      this.ipam.release(req.handle);
      return wired;
    }
    state.policy?.addEndpoint(wired.value.host, req.key);
    this.pods.set(req.key, { node: state, ns: req.ns, veth: wired.value, handle: req.handle });
    return ok({ ip: addr.value, podInterface: wired.value.pod, hostInterface: wired.value.host });
  }

  teardownPod(key: string): void {
    const p = this.pods.get(key);
    if (p === undefined) return;
    this.pods.delete(key);
    p.node.policy?.removeEndpoint(p.veth.host);
    p.node.bridge?.removePort(p.veth.host);
    deletePodVeth(p.veth, p.ns, p.node.node.ns);
    this.ipam.release(p.handle);
  }

  nodeAddresses(node: string): number[] {
    const out: number[] = [];
    const s = this.ipam.subnetOf(node);
    const state = this.nodes.get(node);
    if (s !== undefined && state?.vtep !== null && state?.vtep !== undefined) out.push(s.address);
    if (state?.bridge !== null && state?.bridge !== undefined) out.push(this.ipam.gatewayOf(node));
    return out;
  }

  reassertChains(): void {
    for (const n of this.nodes.values()) n.policy?.assertJumps();
  }

  /** The bridge plugin: vethXXXXXXXX into cni0 (hairpin), eth0 .N/len with default via .1. */
  private wireBridged(state: FlannelNode, req: CniPodRequest, ip: number): Result<PodVeth, CniError> {
    const subject = `pod ${req.key}`;
    const bridge = state.bridge!;
    const hostName = `veth${(this.ctx.rng.nextU32() >>> 0).toString(16).padStart(8, "0")}`;
    const made = createPodVeth(this.ctx.world, req.ns, state.node.ns, { host: hostName }, { host: randomMac(this.ctx.rng), pod: randomMac(this.ctx.rng) }, this.podMtu, subject);
    if (!made.ok) return made;
    const v = made.value;
    const port = bridge.addPort(v.host, { hairpin: true });
    if (!port.ok) return err({ subject, reason: port.error.reason });
    const subnet = this.ipam.subnetOf(state.node.name)!;
    const steps = [req.ns.addAddress(v.pod, ip, subnet.prefixLength), req.ns.routes.add({ dst: 0, prefixLen: 0, via: this.ipam.gatewayOf(state.node.name), dev: v.pod })];
    for (const s of steps) if (!s.ok) return err({ subject, reason: s.error.reason });
    return ok(v);
  }
}
