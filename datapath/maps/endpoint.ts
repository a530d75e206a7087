// Local endpoints of one node (like Cilium's cilium_lxc): pod IPv4 address -> host-side interface,
// endpoint id, security identity, pod MAC, and the endpoint's policy map (a map-in-map reference,
// as Cilium's per-endpoint cilium_policy_<id>). null policy = no policy program (nothing enforced).
import { MapError } from "./errors.js";
import { HashMap } from "./hashmap.js";
import type { PolicyMap } from "./policy.js";

/** Value words of an endpoint entry. */
export const EndpointValue = {
  /** Host-side interface (lxc/cali veth) that reaches the pod. */
  IFINDEX: 0,
  /** Endpoint id (control-plane number, named in drop explanations). */
  ID: 1,
  IDENTITY: 2,
  /** Pod MAC, high 16 bits and low 32 bits. */
  MAC_HI: 3,
  MAC_LO: 4,
} as const;
const VALUE_WORDS = 5;

export interface EndpointSpec {
  ip: number;
  ifindex: number;
  id: number;
  identity: number;
  mac: number;
  policy: PolicyMap | null;
}

export class EndpointMap {
  readonly table: HashMap;
  private readonly policies: (PolicyMap | null)[] = [];

  constructor(maxEntries = 65536) {
    this.table = new HashMap({ keyWords: 1, valueWords: VALUE_WORDS, maxEntries, noPrealloc: true });
  }

  get size(): number {
    return this.table.size;
  }

  /** Adds or replaces the endpoint with this address. 0 ok, else a MapError code. */
  upsert(spec: EndpointSpec): number {
    if (!isU32(spec.ip) || !isU32(spec.ifindex) || !isU32(spec.id) || !isU32(spec.identity)) return MapError.INVALID;
    if (!Number.isInteger(spec.mac) || spec.mac < 0 || spec.mac > 0xffffffffffff) return MapError.INVALID;
    const slot = this.table.upsert1(spec.ip);
    if (slot < 0) return -slot;
    const v = this.table.values;
    const base = slot * VALUE_WORDS;
    v[base + EndpointValue.IFINDEX] = spec.ifindex;
    v[base + EndpointValue.ID] = spec.id;
    v[base + EndpointValue.IDENTITY] = spec.identity;
    v[base + EndpointValue.MAC_HI] = Math.floor(spec.mac / 0x100000000);
    v[base + EndpointValue.MAC_LO] = spec.mac >>> 0;
    this.policies[slot] = spec.policy;
    return 0;
  }

  delete(ip: number): boolean {
    const slot = this.table.find1(ip);
    if (slot < 0) return false;
    this.policies[slot] = null;
    return this.table.deleteSlot(slot);
  }

  /** Slot of the endpoint with this address, or -1. */
  lookup(ip: number): number {
    return this.table.lookup1(ip);
  }

  ifindex(slot: number): number {
    return this.table.values[slot * VALUE_WORDS + EndpointValue.IFINDEX]!;
  }

  id(slot: number): number {
    return this.table.values[slot * VALUE_WORDS + EndpointValue.ID]!;
  }

  identity(slot: number): number {
    return this.table.values[slot * VALUE_WORDS + EndpointValue.IDENTITY]!;
  }

  macHi(slot: number): number {
    return this.table.values[slot * VALUE_WORDS + EndpointValue.MAC_HI]!;
  }

  macLo(slot: number): number {
    return this.table.values[slot * VALUE_WORDS + EndpointValue.MAC_LO]!;
  }

  mac(slot: number): number {
    const v = this.table.values;
    return v[slot * VALUE_WORDS + EndpointValue.MAC_HI]! * 0x100000000 + v[slot * VALUE_WORDS + EndpointValue.MAC_LO]!;
  }

  /** Address of the endpoint at a slot (the key). */
  ip(slot: number): number {
    return this.table.keys[slot]!;
  }

  policy(slot: number): PolicyMap | null {
    return this.policies[slot] ?? null;
  }
}

function isU32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
}
