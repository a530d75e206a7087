// Calico's block IPAM (libcalico-go ipam): the pool is cut into blocks of `blockSize`; a node claims
// a block (affinity) when it first needs an address, starting its search at a block index drawn from a
// generator seeded with the FNV-1 hash of the host name (so a host lands on the same block every time)
// and walking forward with wrap-around to the first unclaimed one; addresses inside a block go in
// ordinal order, released ordinals go to the back of the free list; a node with full blocks claims
// another. Requested addresses (ipAddrs annotation, status.podIP) are honoured when inside the pool
// and free. Differences from Calico: the start index comes from cnisim's SeededRng rather than Go's
// math/rand, and addresses in a block affine to another node are refused instead of borrowed.
import { formatIPv4 } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";
import { SeededRng } from "../../util/rng.js";
import { formatPrefix, inPrefix, prefixSize, type Prefix4 } from "./prefix.js";
import type { Ipam, IpamError, IpamRequest } from "./types.js";

interface Block {
  readonly index: number;
  readonly prefix: Prefix4;
  readonly affinity: string;
  /** Free ordinals, allocation order. */
  readonly unallocated: number[];
  /** Ordinal -> handle. */
  readonly owners: Map<number, string>;
}

/** FNV-1 (not 1a), 32-bit, over the UTF-8 bytes of text: Go's hash/fnv New32 as Calico seeds with it. */
export function fnv1Hash32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h = Math.imul(h, 0x01000193) >>> 0;
    h = (h ^ byte) >>> 0;
  }
  return h >>> 0;
}

/** True when `handle` belongs to pod `pod` ("ns/name" or "ns/name/uid"). */
export function handleOfPod(handle: string, pod: string): boolean {
  return handle === pod || handle.startsWith(`${pod}/`);
}

export class CalicoBlockIpam implements Ipam {
  private readonly blocks = new Map<number, Block>();
  private readonly affine = new Map<string, Block[]>();
  private readonly held = new Map<string, { address: number; block: Block }>();
  readonly blockCount: number;
  readonly blockAddresses: number;

  constructor(
    readonly pool: Prefix4,
    readonly blockSize: number,
  ) {
    if (blockSize < pool.prefixLength || blockSize > 32) throw new RangeError(`block size /${blockSize} does not fit pool ${formatPrefix(pool)}`);
    this.blockAddresses = 2 ** (32 - blockSize);
    this.blockCount = prefixSize(pool) / this.blockAddresses;
  }

  /** The blocks affine to a node, in claim order. */
  blocksOf(node: string): Prefix4[] {
    return (this.affine.get(node) ?? []).map((b) => b.prefix);
  }

  /** Every claimed block with its node. */
  allBlocks(): { prefix: Prefix4; node: string }[] {
    return [...this.blocks.values()].sort((a, b) => a.index - b.index).map((b) => ({ prefix: b.prefix, node: b.affinity }));
  }

  owner(address: number): string | undefined {
    const b = this.blocks.get(this.blockIndexOf(address));
    return b?.owners.get(address - b.prefix.address);
  }

  /** The node's tunnel address (calico-node's "ipip-tunnel-addr" / "vxlan-tunnel-addr" handle): its block's first free address. */
  assignNodeAddress(node: string, purpose: string): Result<number, IpamError> {
    return this.assign({ pod: `node ${node}`, handle: `${purpose}-${node}`, node, requested: null });
  }

  assign(req: IpamRequest): Result<number, IpamError> {
    const have = this.held.get(req.handle);
    if (have !== undefined) {
      if (req.requested === null || req.requested === have.address) return ok(have.address);
      return this.fail(req, `already holds ${formatIPv4(have.address)}, cannot also take ${formatIPv4(req.requested)}`);
    }
    return req.requested === null ? this.autoAssign(req) : this.assignRequested(req, req.requested >>> 0);
  }

  release(handle: string): boolean {
    const have = this.held.get(handle);
    if (have === undefined) return false;
    this.held.delete(handle);
    const ordinal = have.address - have.block.prefix.address;
    have.block.owners.delete(ordinal);
    have.block.unallocated.push(ordinal);
    return true;
  }

  private autoAssign(req: IpamRequest): Result<number, IpamError> {
    for (const b of this.affine.get(req.node) ?? []) {
      const ordinal = b.unallocated.shift();
      if (ordinal !== undefined) return ok(this.take(b, ordinal, req.handle));
    }
    const claimed = this.claimFreeBlock(req.node);
    if (claimed === null) return this.fail(req, `IP pool ${formatPrefix(this.pool)} has no free /${this.blockSize} block left for node ${req.node}`);
    return ok(this.take(claimed, claimed.unallocated.shift()!, req.handle));
  }

  private assignRequested(req: IpamRequest, addr: number): Result<number, IpamError> {
    if (!inPrefix(this.pool, addr)) return this.fail(req, `requested address ${formatIPv4(addr)} is outside the IP pool ${formatPrefix(this.pool)}`);
    const index = this.blockIndexOf(addr);
    let b = this.blocks.get(index);
    if (b === undefined) b = this.claim(index, req.node);
    if (b.affinity !== req.node) {
      return this.fail(req, `requested address ${formatIPv4(addr)} is in block ${formatPrefix(b.prefix)} of node ${b.affinity}, not of ${req.node}`);
    }
    const ordinal = addr - b.prefix.address;
    const holder = b.owners.get(ordinal);
    if (holder !== undefined) {
      if (handleOfPod(holder, req.pod)) return ok(addr);
      return this.fail(req, `requested address ${formatIPv4(addr)} is already in use by ${holder}`);
    }
    b.unallocated.splice(b.unallocated.indexOf(ordinal), 1);
    return ok(this.take(b, ordinal, req.handle));
  }

  private take(b: Block, ordinal: number, handle: string): number {
    const address = (b.prefix.address + ordinal) >>> 0;
    b.owners.set(ordinal, handle);
    this.held.set(handle, { address, block: b });
    return address;
  }

  /** randomBlockGenerator: a host-seeded start index, then the next blocks with wrap-around. */
  private claimFreeBlock(node: string): Block | null {
    const start = new SeededRng(fnv1Hash32(node)).nextInt(this.blockCount);
    for (let i = 0; i < this.blockCount; i++) {
      const index = (start + i) % this.blockCount;
      if (!this.blocks.has(index)) return this.claim(index, node);
    }
    return null;
  }

  private claim(index: number, node: string): Block {
    const prefix = { address: (this.pool.address + index * this.blockAddresses) >>> 0, prefixLength: this.blockSize };
    const block: Block = { index, prefix, affinity: node, unallocated: Array.from({ length: this.blockAddresses }, (_, i) => i), owners: new Map() };
    this.blocks.set(index, block);
    const list = this.affine.get(node) ?? [];
    list.push(block);
    this.affine.set(node, list);
    return block;
  }

  private blockIndexOf(addr: number): number {
    return Math.floor(((addr >>> 0) - this.pool.address) / this.blockAddresses);
  }

  private fail(req: IpamRequest, reason: string): Result<never, IpamError> {
    return err({ subject: req.pod.startsWith("node ") ? req.pod : `pod ${req.pod}`, reason });
  }
}
