// The bridge plugin as Docker sets up one host: docker0 (172.17.0.1/16 by default) with every
// container's veth attached, containers numbered from .2 with default via .1, ip_forward on,
// `POSTROUTING -s <net> ! -o docker0 -j MASQUERADE` for outbound traffic, and each published port
// (`docker run -p HOST:CONTAINER`, here containers[].ports[].hostPort) as a DNAT in the DOCKER chain
// plus the matching ACCEPT in filter DOCKER, as dockerd writes them.
import { BridgeDevice } from "../../net/bridge.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { formatIPv4 } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";
import { randomMac } from "../common/macs.js";
import { createPodVeth, deletePodVeth, type PodVeth } from "../common/veth.js";
import { HostLocalRange, SharedRangeIpam } from "../ipam/node-subnets.js";
import { formatPrefix, prefixSize } from "../ipam/prefix.js";
import { PolicyEnforcement, type CniContext, type CniError, type CniNode, type CniPlugin, type CniPodRequest, type CniPodResult, type HostPort } from "../plugin.js";

const BRIDGE = "docker0";

interface Container {
  readonly veth: PodVeth;
  readonly ns: NetNamespace;
  readonly handle: string;
  readonly ip: number;
  readonly published: readonly HostPort[];
}

export class BridgePlugin implements CniPlugin {
  readonly name = "bridge";
  readonly policyEnforcement = PolicyEnforcement.NONE;
  readonly podMtu: number;
  readonly ipam: SharedRangeIpam;
  readonly gateway: number;
  private host: CniNode | null = null;
  private bridge: BridgeDevice | null = null;
  private readonly containers = new Map<string, Container>();

  constructor(private readonly ctx: CniContext) {
    const net = ctx.network.cni.podCIDR;
    this.podMtu = ctx.network.underlay.link.mtu;
    this.gateway = (net.address + 1) >>> 0;
    this.ipam = new SharedRangeIpam(new HostLocalRange(net.address + 2, net.address + prefixSize(net) - 2, `the ${BRIDGE} network ${formatPrefix(net)}`), new Set());
  }

  private get cidr(): string {
    return formatPrefix(this.ctx.network.cni.podCIDR);
  }

  describe(): string[] {
    return [
      `${BRIDGE}: bridge with gateway ${formatIPv4(this.gateway)}/${this.ctx.network.cni.podCIDR.prefixLength}; one veth per container`,
      `outbound: POSTROUTING -s ${this.cidr} ! -o ${BRIDGE} -j MASQUERADE`,
      "published ports (hostPort): DNAT in nat DOCKER, ACCEPT in filter DOCKER",
      "NetworkPolicy: NOT enforced",
    ];
  }

  notices(): string[] {
    return ["bridge (docker0) does not enforce NetworkPolicy: every NetworkPolicy in this cluster has NO effect"];
  }

  setupNode(node: CniNode): Result<void, CniError> {
    const subject = `node ${node.name}`;
    const ns = node.ns;
    ns.sysctl.ipForward = true;
    const bridge = new BridgeDevice(this.ctx.world, BRIDGE, randomMac(this.ctx.rng), { macSet: true });
    const added = ns.addDevice(bridge);
    if (!added.ok) return err({ subject, reason: added.error.reason });
    const a = ns.addAddress(bridge, this.gateway, this.ctx.network.cni.podCIDR.prefixLength);
    if (!a.ok) return err({ subject, reason: a.error.reason });
    const nat = ns.netfilter.table("nat");
    const filter = ns.netfilter.table("filter");
    nat.newChain("DOCKER");
    nat.append("PREROUTING", { dstType: { type: "LOCAL" }, target: { kind: "JUMP", chain: "DOCKER" } });
    nat.append("OUTPUT", { dst: "!127.0.0.0/8", dstType: { type: "LOCAL" }, target: { kind: "JUMP", chain: "DOCKER" } });
    nat.append("POSTROUTING", { src: this.cidr, outIface: `!${BRIDGE}`, target: { kind: "MASQUERADE" } });
    nat.append("DOCKER", { inIface: BRIDGE, target: { kind: "RETURN" } });
    filter.newChain("DOCKER");
    filter.setPolicy("FORWARD", "DROP");
    filter.append("FORWARD", { outIface: BRIDGE, ctstate: { states: ["RELATED", "ESTABLISHED"] }, target: { kind: "ACCEPT" } });
    filter.append("FORWARD", { outIface: BRIDGE, target: { kind: "JUMP", chain: "DOCKER" } });
    filter.append("FORWARD", { inIface: BRIDGE, outIface: `!${BRIDGE}`, target: { kind: "ACCEPT" } });
    filter.append("FORWARD", { inIface: BRIDGE, outIface: BRIDGE, target: { kind: "ACCEPT" } });
    this.host = node;
    this.bridge = bridge;
    return ok(undefined);
  }

  start(): Result<void, CniError> {
    return ok(undefined);
  }

  setupPod(req: CniPodRequest): Result<CniPodResult, CniError> {
    const subject = `pod ${req.key}`;
    if (this.host === null || this.bridge === null) return err({ subject, reason: "the host is not set up" });
    const addr = this.ipam.assign({ pod: req.key, handle: req.handle, node: req.node.name, requested: req.requested });
    if (!addr.ok) return err({ subject: addr.error.subject, reason: addr.error.reason });
    const hostName = `veth${(this.ctx.rng.nextU32() >>> 4).toString(16).padStart(7, "0")}`;
    const made = createPodVeth(this.ctx.world, req.ns, this.host.ns, { host: hostName }, { host: randomMac(this.ctx.rng), pod: randomMac(this.ctx.rng) }, this.podMtu, subject);
    if (!made.ok) {
      this.ipam.release(req.handle);
      return made;
    }
    const v = made.value;
    const port = this.bridge.addPort(v.host);
    if (!port.ok) return err({ subject, reason: port.error.reason });
    const steps = [req.ns.addAddress(v.pod, addr.value, this.ctx.network.cni.podCIDR.prefixLength), req.ns.routes.add({ dst: 0, prefixLen: 0, via: this.gateway, dev: v.pod })];
    for (const s of steps) if (!s.ok) return err({ subject, reason: s.error.reason });
    for (const p of req.hostPorts) this.publish(addr.value, p);
    this.containers.set(req.key, { veth: v, ns: req.ns, handle: req.handle, ip: addr.value, published: req.hostPorts });
    return ok({ ip: addr.value, podInterface: v.pod, hostInterface: v.host });
  }

  teardownPod(key: string): void {
    const c = this.containers.get(key);
    if (c === undefined || this.host === null) return;
    this.containers.delete(key);
    for (const p of c.published) this.unpublish(c.ip, p);
    this.bridge?.removePort(c.veth.host);
    deletePodVeth(c.veth, c.ns, this.host.ns);
    this.ipam.release(c.handle);
  }

  nodeAddresses(): number[] {
    return [this.gateway];
  }

  /** `docker run -p HOST:CONTAINER`: DNAT from any local address, ACCEPT towards the container, hairpin masquerade. */
  private publish(ip: number, p: HostPort): void {
    const ns = this.host!.ns;
    const addr = formatIPv4(ip);
    ns.netfilter.table("nat").append("DOCKER", { inIface: `!${BRIDGE}`, proto: p.protocol, dport: p.hostPort, target: { kind: "DNAT", to: `${addr}:${p.containerPort}` } });
    ns.netfilter.table("nat").append("POSTROUTING", { src: `${addr}/32`, dst: `${addr}/32`, proto: p.protocol, dport: p.containerPort, target: { kind: "MASQUERADE" } });
    ns.netfilter.table("filter").append("DOCKER", { dst: `${addr}/32`, inIface: `!${BRIDGE}`, outIface: BRIDGE, proto: p.protocol, dport: p.containerPort, target: { kind: "ACCEPT" } });
  }

  private unpublish(ip: number, p: HostPort): void {
    const ns = this.host!.ns;
    const addr = formatIPv4(ip);
    const drop = (table: "nat" | "filter", chain: string, match: (dst: unknown, dport: unknown) => boolean) => {
      const t = ns.netfilter.table(table);
      const at = (t.chain(chain)?.rules ?? []).findIndex((r) => match(r.spec.dst, r.spec.dport) && r.spec.proto === p.protocol);
      if (at >= 0) t.delete(chain, at + 1);
    };
    drop("nat", "DOCKER", (_d, dport) => dport === p.hostPort);
    drop("nat", "POSTROUTING", (d, dport) => d === `${addr}/32` && dport === p.containerPort);
    drop("filter", "DOCKER", (d, dport) => d === `${addr}/32` && dport === p.containerPort);
  }
}
