// Pod addresses. The CNI layer will provide the real allocator (Calico blocks, flannel subnets);
// until then NodeBlockAllocator gives node i the i-th block of the cluster's pod CIDR and hands
// out its addresses in order, skipping the block's first address (the tunnel / bridge address).
import { formatIPv4 } from "../util/ip.js";
import type { ClusterModel } from "../k8s/index.js";

export interface PodIpAllocator {
  /** An address for the pod on `node`, or null when the node has none left (or is unknown). */
  allocate(node: string, podKey: string): string | null;
  release(podKey: string): void;
}

interface Block {
  readonly base: number;
  readonly size: number;
  next: number;
}

export class NodeBlockAllocator implements PodIpAllocator {
  private readonly blocks = new Map<string, Block>();
  private readonly owned = new Map<string, { node: string; address: number }>();
  private readonly free = new Map<string, number[]>();

  /**
   * `nodes` in cluster order; the pod CIDR and block size come from the cluster's CNI settings,
   * else 10.244.0.0/16 in /24 blocks (kubeadm + flannel defaults).
   */
  constructor(nodes: readonly string[], podCidr = { address: 0x0af40000, prefixLength: 16 }, blockSize = 24) {
    const size = 2 ** (32 - blockSize);
    nodes.forEach((name, i) => {
      const base = (podCidr.address + i * size) >>> 0;
      this.blocks.set(name, { base, size, next: 2 });
    });
  }

  static fromCluster(model: ClusterModel): NodeBlockAllocator {
    const cni = model.network?.cni;
    const names = model.nodes.map((n) => n.name);
    if (cni === undefined) return new NodeBlockAllocator(names);
    return new NodeBlockAllocator(names, cni.podCIDR, cni.blockSize ?? Math.min(32, cni.podCIDR.prefixLength + 8));
  }

  allocate(node: string, podKey: string): string | null {
    const have = this.owned.get(podKey);
    if (have !== undefined) return formatIPv4(have.address);
    const block = this.blocks.get(node);
    if (block === undefined) return null;
    // Like Calico's block ordinals: unused addresses in order first, released ones after them.
    let offset: number | undefined;
    if (block.next < block.size - 1) offset = block.next++;
    else offset = this.free.get(node)?.shift();
    if (offset === undefined) return null;
    const address = (block.base + offset) >>> 0;
    this.owned.set(podKey, { node, address });
    return formatIPv4(address);
  }

  release(podKey: string): void {
    const have = this.owned.get(podKey);
    if (have === undefined) return;
    this.owned.delete(podKey);
    const block = this.blocks.get(have.node);
    if (block === undefined) return;
    const list = this.free.get(have.node) ?? [];
    list.push(have.address - block.base);
    this.free.set(have.node, list);
  }
}
