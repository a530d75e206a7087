// Tunnel map (like Cilium's cilium_tunnel_map): remote pod CIDR -> the node (VTEP) that hosts it,
// longest prefix wins. Filled by the control plane from the nodes' pod CIDRs / IPAM blocks.
import { MapError } from "./errors.js";
import { LpmTrieMap } from "./lpm.js";

const ENDPOINT = 0;
const VALUE_WORDS = 1;

export class TunnelMap {
  readonly lpm: LpmTrieMap;

  constructor(maxEntries = 4096) {
    this.lpm = new LpmTrieMap({ keyBits: 32, valueWords: VALUE_WORDS, maxEntries, noPrealloc: true });
  }

  get size(): number {
    return this.lpm.size;
  }

  /** Routes prefix/len through the tunnel to `endpoint` (the remote node's underlay IPv4). 0 ok, else a MapError code. */
  upsertV4(prefix: number, prefixLen: number, endpoint: number): number {
    if (!Number.isInteger(endpoint) || endpoint <= 0 || endpoint > 0xffffffff) return MapError.INVALID;
    const slot = this.lpm.upsert32(prefix, prefixLen);
    if (slot < 0) return -slot;
    this.lpm.values[slot * VALUE_WORDS + ENDPOINT] = endpoint;
    return 0;
  }

  deleteV4(prefix: number, prefixLen: number): boolean {
    return this.lpm.delete32(prefix, prefixLen);
  }

  /** Tunnel endpoint for an address, 0 when no prefix covers it (route natively). */
  lookupV4(addr: number): number {
    const slot = this.lpm.lookup32(addr);
    return slot < 0 ? 0 : this.lpm.values[slot * VALUE_WORDS + ENDPOINT]!;
  }
}
