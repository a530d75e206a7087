// The macvlan plugin: every pod gets a macvlan (bridge mode) on its node's eth0 with its own MAC and an
// address on the underlay subnet (one range for the whole cluster: the upper half of the subnet, less
// the gateway, node and host addresses), default route via the underlay gateway. Pods talk to each
// other and to the segment directly, but not to their own host (see device.ts); no NetworkPolicy.
import { formatIPv4 } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";
import { randomMac } from "../common/macs.js";
import { HostLocalRange, SharedRangeIpam } from "../ipam/node-subnets.js";
import { formatPrefix, prefixSize } from "../ipam/prefix.js";
import { PolicyEnforcement, type CniContext, type CniError, type CniNode, type CniPlugin, type CniPodRequest, type CniPodResult } from "../plugin.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { MacvlanDevice, MacvlanPort } from "./device.js";

export class MacvlanPlugin implements CniPlugin {
  readonly name = "macvlan-bridge";
  readonly policyEnforcement = PolicyEnforcement.NONE;
  readonly podMtu: number;
  readonly ipam: SharedRangeIpam;
  private readonly ports = new Map<string, MacvlanPort>();
  private readonly pods = new Map<string, { dev: MacvlanDevice; ns: NetNamespace; handle: string }>();

  constructor(private readonly ctx: CniContext) {
    const s = ctx.network.underlay.subnet;
    this.podMtu = ctx.network.underlay.link.mtu;
    const size = prefixSize(s);
    const reserved = new Set<number>([ctx.network.underlay.gateway, ...ctx.nodes.map((n) => n.ip), ...ctx.network.externalHosts.map((h) => h.ipInt)]);
    this.ipam = new SharedRangeIpam(new HostLocalRange(s.address + size / 2, s.address + size - 2, `the macvlan range of ${formatPrefix(s)}`), reserved);
  }

  describe(): string[] {
    const r = this.ipam.range;
    return [
      `IPAM: pods on the underlay subnet, ${formatIPv4(r.first)}-${formatIPv4(r.end)} (cluster-wide)`,
      "pods: macvlan (bridge mode) on the node's eth0, own MAC, default route via the underlay gateway",
      "no path between a pod and its own host through eth0: macvlan bridge mode does not hairpin to the parent",
      "NetworkPolicy: NOT enforced",
    ];
  }

  notices(): string[] {
    return [
      "macvlan does not enforce NetworkPolicy: every NetworkPolicy in this cluster has NO effect",
      "macvlan: a pod cannot reach its own node through eth0 (and the node cannot reach it), so kube-proxy Services and node health checks do not reach local pods",
    ];
  }

  setupNode(node: CniNode): Result<void, CniError> {
    this.ports.set(node.name, new MacvlanPort(node.uplink));
    return ok(undefined);
  }

  start(): Result<void, CniError> {
    return ok(undefined);
  }

  setupPod(req: CniPodRequest): Result<CniPodResult, CniError> {
    const subject = `pod ${req.key}`;
    const port = this.ports.get(req.node.name);
    if (port === undefined) return err({ subject, reason: `node ${req.node.name} is not set up` });
    const addr = this.ipam.assign({ pod: req.key, handle: req.handle, node: req.node.name, requested: req.requested });
    if (!addr.ok) return err({ subject: addr.error.subject, reason: addr.error.reason });
    const dev = new MacvlanDevice(port, "eth0", randomMac(this.ctx.rng));
    const u = this.ctx.network.underlay;
    const steps = [req.ns.addDevice(dev), req.ns.addAddress(dev, addr.value, u.subnet.prefixLength), req.ns.routes.add({ dst: 0, prefixLen: 0, via: u.gateway, dev })];
    for (const s of steps) {
      if (!s.ok) {
        dev.detach();
        this.ipam.release(req.handle);
        return err({ subject, reason: s.error.reason });
      }
    }
    this.pods.set(req.key, { dev, ns: req.ns, handle: req.handle });
    return ok({ ip: addr.value, podInterface: dev, hostInterface: null });
  }

  teardownPod(key: string): void {
    const p = this.pods.get(key);
    if (p === undefined) return;
    this.pods.delete(key);
    p.dev.detach();
    p.ns.removeDevice(p.dev);
    this.ipam.release(p.handle);
  }

  nodeAddresses(): number[] {
    return [];
  }
}
