// IpCache: IP prefix -> (security identity, tunnel endpoint, flags), longest prefix wins, like Cilium's
// cilium_ipcache. Filled by the control plane (pod IPs, node IPs, CIDR identities, world /0).
import { MapError } from "./errors.js";
import { LpmTrieMap } from "./lpm.js";

/** Flag bits of an ipcache entry. */
export const IpCacheFlag = {
  /** Reach this prefix by native routing even when the datapath tunnels (Cilium's skip-tunnel flag). */
  SKIP_TUNNEL: 1,
} as const;

// Value layout (words): identity, IPv4 tunnel endpoint (0 = none, route natively), flags.
const IDENTITY = 0;
const TUNNEL_ENDPOINT = 1;
const FLAGS = 2;
const VALUE_WORDS = 3;

export class IpCache {
  /** Tunnel endpoint (IPv4 as u32) of the last lookup's entry, 0 if none or on a miss. */
  lastTunnelEndpoint = 0;
  /** Prefix length matched by the last lookup, -1 on a miss. */
  lastPrefixLen = -1;
  /** Flags of the last lookup's entry, 0 on a miss. */
  lastFlags = 0;

  readonly v4: LpmTrieMap;
  readonly v6: LpmTrieMap;

  constructor(maxEntries: number) {
    this.v4 = new LpmTrieMap({ keyBits: 32, valueWords: VALUE_WORDS, maxEntries, noPrealloc: true });
    this.v6 = new LpmTrieMap({ keyBits: 128, valueWords: VALUE_WORDS, maxEntries, noPrealloc: true });
  }

  get size(): number {
    return this.v4.size + this.v6.size;
  }

  /** 0 ok, else a MapError code (FULL, INVALID). */
  upsertV4(addr: number, prefixLen: number, identity: number, tunnelEndpoint: number, flags: number): number {
    if (!validValue(identity, tunnelEndpoint, flags)) return MapError.INVALID;
    const slot = this.v4.upsert32(addr, prefixLen);
    if (slot < 0) return -slot;
    return store(this.v4.values, slot, identity, tunnelEndpoint, flags);
  }

  deleteV4(addr: number, prefixLen: number): boolean {
    return this.v4.delete32(addr, prefixLen);
  }

  /** Identity of the longest prefix containing addr (0 on a miss); sets lastTunnelEndpoint/lastPrefixLen/lastFlags. */
  lookupV4(addr: number): number {
    return this.load(this.v4, this.v4.lookup32(addr));
  }

  /** IPv6 variant: address as 16 bytes at `offset` (e.g. straight from a packet). */
  upsertV6(
    bytes: Uint8Array,
    offset: number,
    prefixLen: number,
    identity: number,
    tunnelEndpoint: number,
    flags: number,
  ): number {
    if (!validValue(identity, tunnelEndpoint, flags)) return MapError.INVALID;
    loadV6(this.v6.key, bytes, offset);
    const slot = this.v6.upsert(prefixLen);
    if (slot < 0) return -slot;
    return store(this.v6.values, slot, identity, tunnelEndpoint, flags);
  }

  deleteV6(bytes: Uint8Array, offset: number, prefixLen: number): boolean {
    loadV6(this.v6.key, bytes, offset);
    return this.v6.delete(prefixLen);
  }

  lookupV6(bytes: Uint8Array, offset: number): number {
    loadV6(this.v6.key, bytes, offset);
    return this.load(this.v6, this.v6.lookup());
  }

  clear(): void {
    this.v4.clear();
    this.v6.clear();
  }

  private load(map: LpmTrieMap, slot: number): number {
    if (slot < 0) {
      this.lastTunnelEndpoint = 0;
      this.lastPrefixLen = -1;
      this.lastFlags = 0;
      return 0;
    }
    const values = map.values;
    this.lastTunnelEndpoint = values[slot * VALUE_WORDS + TUNNEL_ENDPOINT]!;
    this.lastFlags = values[slot * VALUE_WORDS + FLAGS]!;
    this.lastPrefixLen = map.lastPrefixLen;
    return values[slot * VALUE_WORDS + IDENTITY]!;
  }
}

function validValue(identity: number, tunnelEndpoint: number, flags: number): boolean {
  return isU32(identity) && isU32(tunnelEndpoint) && isU32(flags);
}

function store(values: Uint32Array, slot: number, identity: number, tunnelEndpoint: number, flags: number): number {
  values[slot * VALUE_WORDS + IDENTITY] = identity;
  values[slot * VALUE_WORDS + TUNNEL_ENDPOINT] = tunnelEndpoint;
  values[slot * VALUE_WORDS + FLAGS] = flags;
  return 0;
}

function isU32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
}

function loadV6(key: Uint32Array, bytes: Uint8Array, offset: number): void {
  for (let i = 0; i < 4; i++) {
    const o = offset + i * 4;
    key[i] = ((bytes[o]! << 24) | (bytes[o + 1]! << 16) | (bytes[o + 2]! << 8) | bytes[o + 3]!) >>> 0;
  }
}
