// flannel's per-node subnets: node i (in cluster order, as kube-controller-manager's range allocator
// hands out node.spec.podCIDR to nodes as they register) gets the i-th /blockSize of the pod CIDR;
// inside it the host-local IPAM plugin reserves .1 for the bridge (cni0) and hands out .2 .. last-1
// round-robin: each allocation continues after the previous one, wrapping, skipping addresses in use.
import { formatIPv4 } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";
import { handleOfPod } from "./calico-blocks.js";
import { formatPrefix, inPrefix, prefixSize, type Prefix4 } from "./prefix.js";
import type { Ipam, IpamError, IpamRequest } from "./types.js";

/** host-local over one range: [first, last] with round-robin from the last reserved address. */
export class HostLocalRange {
  private readonly owners = new Map<number, string>();
  /** The address handed out last (round-robin continues after it). */
  private cursor: number;

  constructor(
    readonly first: number,
    readonly end: number,
    readonly describe: string,
  ) {
    this.cursor = end;
  }

  get used(): number {
    return this.owners.size;
  }

  owner(addr: number): string | undefined {
    return this.owners.get(addr >>> 0);
  }

  contains(addr: number): boolean {
    return addr >>> 0 >= this.first && addr >>> 0 <= this.end;
  }

  take(handle: string, requested: number | null, pod: string): Result<number, string> {
    if (requested !== null) {
      const a = requested >>> 0;
      if (!this.contains(a)) return err(`requested address ${formatIPv4(a)} is outside ${this.describe}`);
      const holder = this.owners.get(a);
      if (holder !== undefined && !handleOfPod(holder, pod)) return err(`requested address ${formatIPv4(a)} is already in use by ${holder}`);
      this.owners.set(a, handle);
      return ok(a);
    }
    const size = this.end - this.first + 1;
    for (let i = 1; i <= size; i++) {
      const a = this.first + ((this.cursor - this.first + i) % size);
      if (!this.owners.has(a)) {
        this.owners.set(a, handle);
        this.cursor = a;
        return ok(a);
      }
    }
    return err(`no free address left in ${this.describe}`);
  }

  free(addr: number): void {
    this.owners.delete(addr >>> 0);
  }
}

export class NodeSubnetIpam implements Ipam {
  private readonly subnets = new Map<string, Prefix4>();
  private readonly ranges = new Map<string, HostLocalRange>();
  private readonly held = new Map<string, { node: string; address: number }>();

  constructor(
    readonly pool: Prefix4,
    readonly subnetLen: number,
    nodes: readonly string[],
  ) {
    const size = 2 ** (32 - subnetLen);
    if (nodes.length * size > prefixSize(pool)) throw new RangeError(`pod CIDR ${formatPrefix(pool)} has fewer than ${nodes.length} /${subnetLen} subnets`);
    nodes.forEach((name, i) => {
      const prefix = { address: (pool.address + i * size) >>> 0, prefixLength: subnetLen };
      this.subnets.set(name, prefix);
      this.ranges.set(name, new HostLocalRange(prefix.address + 2, prefix.address + size - 2, `node ${name}'s subnet ${formatPrefix(prefix)}`));
    });
  }

  /** The node's subnet (node.spec.podCIDR), undefined for an unknown node. */
  subnetOf(node: string): Prefix4 | undefined {
    return this.subnets.get(node);
  }

  /** The bridge gateway (.1) of a node's subnet. */
  gatewayOf(node: string): number {
    const s = this.subnets.get(node);
    return s === undefined ? 0 : (s.address + 1) >>> 0;
  }

  owner(address: number): string | undefined {
    for (const r of this.ranges.values()) if (r.contains(address)) return r.owner(address);
    return undefined;
  }

  assign(req: IpamRequest): Result<number, IpamError> {
    const subject = `pod ${req.pod}`;
    const have = this.held.get(req.handle);
    if (have !== undefined && (req.requested === null || req.requested === have.address)) return ok(have.address);
    const range = this.ranges.get(req.node);
    if (range === undefined) return err({ subject, reason: `node ${req.node} has no pod subnet` });
    if (req.requested !== null && !inPrefix(this.pool, req.requested)) {
      return err({ subject, reason: `requested address ${formatIPv4(req.requested)} is outside the pod network ${formatPrefix(this.pool)}` });
    }
    const r = range.take(req.handle, req.requested, req.pod);
    if (!r.ok) return err({ subject, reason: r.error });
    this.held.set(req.handle, { node: req.node, address: r.value });
    return ok(r.value);
  }

  release(handle: string): boolean {
    const have = this.held.get(handle);
    if (have === undefined) return false;
    this.held.delete(handle);
    this.ranges.get(have.node)?.free(have.address);
    return true;
  }
}

/** One shared range (docker0's network, a macvlan range of the underlay) for every node. */
export class SharedRangeIpam implements Ipam {
  private readonly held = new Map<string, number>();

  constructor(
    readonly range: HostLocalRange,
    /** Addresses never handed out (gateway, node and host addresses). */
    private readonly reserved: ReadonlySet<number>,
  ) {
    for (const a of reserved) if (range.contains(a)) range.take(`reserved ${formatIPv4(a)}`, a, "");
  }

  owner(address: number): string | undefined {
    return this.range.owner(address);
  }

  assign(req: IpamRequest): Result<number, IpamError> {
    const have = this.held.get(req.handle);
    if (have !== undefined && (req.requested === null || req.requested === have)) return ok(have);
    const r = this.range.take(req.handle, req.requested, req.pod);
    if (!r.ok) return err({ subject: `pod ${req.pod}`, reason: r.error });
    this.held.set(req.handle, r.value);
    return ok(r.value);
  }

  release(handle: string): boolean {
    const have = this.held.get(handle);
    if (have === undefined || this.reserved.has(have)) return false;
    this.held.delete(handle);
    this.range.free(have);
    return true;
  }
}
