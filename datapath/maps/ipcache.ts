// IpCache: IP prefix -> (security identity, tunnel endpoint, flags), longest prefix wins, like Cilium's
// cilium_ipcache. Filled by the control plane (pod IPs, node IPs, CIDR identities, world /0).
// Cilium's ipcache content is cluster-wide; views let many nodes share one store, each seeing the
// owner-local value of the entries its own node owns (its pods: no tunnel; its addresses: the host identity).
import { MapError } from "./errors.js";
import { LpmTrieMap } from "./lpm.js";

/** Flag bits of an ipcache entry. */
export const IpCacheFlag = {
  /** Reach this prefix by native routing even when the datapath tunnels (Cilium's skip-tunnel flag). */
  SKIP_TUNNEL: 1,
} as const;

// Value layout (words): identity, IPv4 tunnel endpoint (0 = none, route natively), flags, owner (0 = none),
// identity the owner's view sees (the owner's view also sees tunnel endpoint 0).
const IDENTITY = 0;
const TUNNEL_ENDPOINT = 1;
const FLAGS = 2;
const OWNER = 3;
const OWNER_IDENTITY = 4;
const VALUE_WORDS = 5;

/** Makes an IpCache a view of another cache's store, answering for `owner` (see IpCache.view). */
export interface IpCacheShare {
  readonly store: IpCache;
  /** Owner tag (> 0) whose owner-local values this view sees. */
  readonly owner: number;
}

export class IpCache {
  /** Tunnel endpoint (IPv4 as u32) of the last lookup's entry, 0 if none or on a miss. */
  lastTunnelEndpoint = 0;
  /** Prefix length matched by the last lookup, -1 on a miss. */
  lastPrefixLen = -1;
  /** Flags of the last lookup's entry, 0 on a miss. */
  lastFlags = 0;

  readonly v4: LpmTrieMap;
  readonly v6: LpmTrieMap;
  /** Owner tag of this view (0 for a plain cache, which always sees the shared values). */
  readonly viewer: number;

  /** A cache of its own, or (with `share`) a view of another cache's store: writes go to the shared store. */
  constructor(maxEntries: number, share?: IpCacheShare) {
    if (share === undefined) {
      this.v4 = new LpmTrieMap({ keyBits: 32, valueWords: VALUE_WORDS, maxEntries, noPrealloc: true });
      this.v6 = new LpmTrieMap({ keyBits: 128, valueWords: VALUE_WORDS, maxEntries, noPrealloc: true });
      this.viewer = 0;
    } else {
      if (!Number.isInteger(share.owner) || share.owner < 1 || share.owner > 0xffffffff) {
        throw new RangeError(`IpCache view: owner must be an integer in 1..4294967295, got ${share.owner}`);
      }
      this.v4 = share.store.v4;
      this.v6 = share.store.v6;
      this.viewer = share.owner;
    }
  }

  /** A view of this cache's store for `owner` (e.g. one node of a cluster-wide ipcache). */
  view(owner: number): IpCache {
    return new IpCache(this.v4.maxEntries, { store: this, owner });
  }

  get size(): number {
    return this.v4.size + this.v6.size;
  }

  /** 0 ok, else a MapError code (FULL, INVALID). The entry looks the same from every view. */
  upsertV4(addr: number, prefixLen: number, identity: number, tunnelEndpoint: number, flags: number): number {
    return this.upsertOwnedV4(addr, prefixLen, identity, tunnelEndpoint, flags, 0, identity);
  }

  /**
   * Like upsertV4 for an entry owned by `owner` (0 = none): the view of that owner sees `ownerIdentity`
   * and no tunnel endpoint (e.g. a pod seen from its own node, or a node address seen as the host).
   */
  upsertOwnedV4(
    addr: number,
    prefixLen: number,
    identity: number,
    tunnelEndpoint: number,
    flags: number,
    owner: number,
    ownerIdentity: number,
  ): number {
    if (!validValue(identity, tunnelEndpoint, flags) || !isU32(owner) || !isU32(ownerIdentity)) return MapError.INVALID;
    const slot = this.v4.upsert32(addr, prefixLen);
    if (slot < 0) return -slot;
    return store(this.v4.values, slot, identity, tunnelEndpoint, flags, owner, ownerIdentity);
  }

  deleteV4(addr: number, prefixLen: number): boolean {
    return this.v4.delete32(addr, prefixLen);
  }

  /** Identity of the longest prefix containing addr (0 on a miss); sets lastTunnelEndpoint/lastPrefixLen/lastFlags. */
  lookupV4(addr: number): number {
    return this.load(this.v4, this.v4.lookup32(addr | 0));
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
    return store(this.v6.values, slot, identity, tunnelEndpoint, flags, 0, identity);
  }

  deleteV6(bytes: Uint8Array, offset: number, prefixLen: number): boolean {
    loadV6(this.v6.key, bytes, offset);
    return this.v6.delete(prefixLen);
  }

  lookupV6(bytes: Uint8Array, offset: number): number {
    loadV6(this.v6.key, bytes, offset);
    return this.load(this.v6, this.v6.lookup());
  }

  /** Empties the store (every view of it). */
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
    const base = slot * VALUE_WORDS;
    this.lastFlags = values[base + FLAGS]!;
    this.lastPrefixLen = map.lastPrefixLen;
    if (this.viewer !== 0 && values[base + OWNER] === this.viewer) {
      this.lastTunnelEndpoint = 0;
      return values[base + OWNER_IDENTITY]!;
    }
    this.lastTunnelEndpoint = values[base + TUNNEL_ENDPOINT]!;
    return values[base + IDENTITY]!;
  }
}

function validValue(identity: number, tunnelEndpoint: number, flags: number): boolean {
  return isU32(identity) && isU32(tunnelEndpoint) && isU32(flags);
}

function store(
  values: Uint32Array,
  slot: number,
  identity: number,
  tunnelEndpoint: number,
  flags: number,
  owner: number,
  ownerIdentity: number,
): number {
  const base = slot * VALUE_WORDS;
  values[base + IDENTITY] = identity;
  values[base + TUNNEL_ENDPOINT] = tunnelEndpoint;
  values[base + FLAGS] = flags;
  values[base + OWNER] = owner;
  values[base + OWNER_IDENTITY] = ownerIdentity;
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
