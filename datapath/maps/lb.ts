// Service load-balancing maps (like Cilium's cilium_lb4_services_v2, _backends, _reverse_nat, _affinity):
// frontends (vip, port, proto) with numbered backend slots, backends by id, reverse-NAT entries by index,
// and ClientIP session affinity. The control plane (kube-proxy replacement) writes; programs look up.
import { MapError } from "./errors.js";
import { HashMap } from "./hashmap.js";
import { LruHashMap } from "./lru.js";

/** Frontend flags (SVC_FLAG_* in spirit; our own bit values). */
export const ServiceFlag = {
  /** The frontend is a NodePort (its vip is a node address, or 0 = every node address). */
  NODEPORT: 1,
  /** sessionAffinity: ClientIP (timeout in the AFFINITY_TIMEOUT_S word). */
  AFFINITY: 2,
  /** No backends: answer ICMP port unreachable (kube-proxy's REJECT) instead of dropping (NO_SERVICE). */
  REJECT_NO_BACKEND: 4,
  /** externalIPs / LoadBalancer ingress address. */
  EXTERNAL_IP: 8,
} as const;

/**
 * Service value words. Slot 0 of a frontend is its master entry (COUNT backends, flags, rev-NAT index,
 * affinity timeout); slots 1..COUNT hold one BACKEND_ID each, as in Cilium's backend_slot layout.
 */
export const SvcValue = { COUNT: 0, BACKEND_ID: 1, REV_NAT_INDEX: 2, FLAGS: 3, AFFINITY_TIMEOUT_S: 4 } as const;
export const SVC_VALUE_WORDS = 5;
/** Backend value words: address, port, protocol. */
export const BackendValue = { ADDR: 0, PORT: 1, PROTO: 2 } as const;
/** Reverse-NAT value words: the frontend address and port replies are translated back to. */
export const RevNatValue = { ADDR: 0, PORT: 1 } as const;
/** Affinity value words: backend id, last use (ns, two words). */
export const AffinityValue = { BACKEND_ID: 0, LAST_USED_NS: 1 } as const;

const PROTOS = new Set([6, 17, 132]);

export interface ServiceSpec {
  /** Frontend address; 0 with NODEPORT = the port on every node address (Cilium's surrogate frontend). */
  vip: number;
  port: number;
  /** 6 TCP, 17 UDP, 132 SCTP. */
  proto: number;
  /** 1..65535, shared by every frontend of one service port (ClusterIP, NodePort, ...). */
  revNatIndex: number;
  flags: number;
  backendIds: readonly number[];
  /** ClientIP affinity timeout in seconds (Kubernetes default 10800). */
  affinityTimeoutSec?: number;
}

export class LbMaps {
  /** Key [vip, port << 16 | proto << 8, slot]; value SvcValue words. */
  readonly services: HashMap;
  /** Key [backend id]; value BackendValue words. */
  readonly backends: HashMap;
  /** Key [rev-NAT index]; value RevNatValue words. */
  readonly revNat: HashMap;
  /** Key [client address, rev-NAT index]; value AffinityValue words. */
  readonly affinity: LruHashMap;
  /** Key [rev-NAT index, backend id]: the backend still serves the service (LB_AFFINITY_MATCH_MAP). */
  readonly affinityMatch: HashMap;

  constructor(maxEntries = 65536) {
    const opts = { maxEntries, noPrealloc: true };
    this.services = new HashMap({ keyWords: 3, valueWords: SVC_VALUE_WORDS, ...opts });
    this.backends = new HashMap({ keyWords: 1, valueWords: 3, ...opts });
    this.revNat = new HashMap({ keyWords: 1, valueWords: 2, ...opts });
    this.affinity = new LruHashMap({ keyWords: 2, valueWords: 3, maxEntries });
    this.affinityMatch = new HashMap({ keyWords: 2, valueWords: 1, ...opts });
  }

  // ---- hot path (no allocation)

  /** Master slot of the frontend, or -1. */
  lookupService(vip: number, port: number, proto: number): number {
    return this.lookupSlot(vip, port, proto, 0);
  }

  /** Slot of backend slot `slot` (1..COUNT) of the frontend, or -1. */
  lookupSlot(vip: number, port: number, proto: number, slot: number): number {
    const key = this.services.key;
    key[0] = vip;
    key[1] = ((port << 16) | (proto << 8)) >>> 0;
    key[2] = slot;
    return this.services.lookup();
  }

  lookupBackend(id: number): number {
    return this.backends.lookup1(id);
  }

  lookupRevNat(index: number): number {
    return this.revNat.lookup1(index);
  }

  /** True when backend `id` is still one of the backends of rev-NAT index `revNat`. */
  backendServes(revNat: number, id: number): boolean {
    return this.affinityMatch.find2(revNat, id) >= 0;
  }

  // ---- control plane

  /** Adds or replaces a frontend and its backend slots. 0 ok, else a MapError code (nothing changed). */
  upsertService(spec: ServiceSpec): number {
    const { vip, port, proto, revNatIndex, flags, backendIds } = spec;
    const timeout = spec.affinityTimeoutSec ?? 0;
    if (!isU32(vip) || !isPort(port) || !PROTOS.has(proto) || !isIndex(revNatIndex) || !isU32(flags) || !isU32(timeout)) {
      return MapError.INVALID;
    }
    if (!backendIds.every((id) => isU32(id) && id > 0)) return MapError.INVALID;
    const master = this.lookupService(vip, port, proto);
    const oldCount = master >= 0 ? this.services.values[master * SVC_VALUE_WORDS + SvcValue.COUNT]! : 0;
    const oldRevNat = master >= 0 ? this.services.values[master * SVC_VALUE_WORDS + SvcValue.REV_NAT_INDEX]! : 0;
    const newKeys = Math.max(0, backendIds.length - oldCount) + (master >= 0 ? 0 : 1);
    if (this.services.size + newKeys > this.services.maxEntries) {
      this.services.stats.full++;
      return MapError.FULL;
    }
    const oldIds: number[] = [];
    for (let s = 1; s <= oldCount; s++) {
      const slot = this.lookupSlot(vip, port, proto, s);
      if (slot >= 0) oldIds.push(this.services.values[slot * SVC_VALUE_WORDS + SvcValue.BACKEND_ID]!);
    }
    for (let s = 0; s < backendIds.length; s++) {
      const slot = this.upsertSlot(vip, port, proto, s + 1);
      this.services.values[slot * SVC_VALUE_WORDS + SvcValue.BACKEND_ID] = backendIds[s]!;
      this.services.values[slot * SVC_VALUE_WORDS + SvcValue.REV_NAT_INDEX] = revNatIndex;
    }
    for (let s = backendIds.length + 1; s <= oldCount; s++) this.deleteSlot(vip, port, proto, s);
    const m = this.upsertSlot(vip, port, proto, 0);
    const v = this.services.values;
    v[m * SVC_VALUE_WORDS + SvcValue.COUNT] = backendIds.length;
    v[m * SVC_VALUE_WORDS + SvcValue.BACKEND_ID] = 0;
    v[m * SVC_VALUE_WORDS + SvcValue.REV_NAT_INDEX] = revNatIndex;
    v[m * SVC_VALUE_WORDS + SvcValue.FLAGS] = flags;
    v[m * SVC_VALUE_WORDS + SvcValue.AFFINITY_TIMEOUT_S] = timeout;
    this.syncAffinityMatch(oldRevNat, oldIds, revNatIndex, backendIds);
    return 0;
  }

  deleteService(vip: number, port: number, proto: number): boolean {
    const master = this.lookupService(vip, port, proto);
    if (master < 0) return false;
    const count = this.services.values[master * SVC_VALUE_WORDS + SvcValue.COUNT]!;
    const revNat = this.services.values[master * SVC_VALUE_WORDS + SvcValue.REV_NAT_INDEX]!;
    const oldIds: number[] = [];
    for (let s = 1; s <= count; s++) {
      const slot = this.lookupSlot(vip, port, proto, s);
      if (slot >= 0) oldIds.push(this.services.values[slot * SVC_VALUE_WORDS + SvcValue.BACKEND_ID]!);
      this.deleteSlot(vip, port, proto, s);
    }
    this.deleteSlot(vip, port, proto, 0);
    this.syncAffinityMatch(revNat, oldIds, revNat, []);
    return true;
  }

  upsertBackend(id: number, addr: number, port: number, proto: number): number {
    if (!isU32(id) || id === 0 || !isU32(addr) || !isPort(port) || !PROTOS.has(proto)) return MapError.INVALID;
    const slot = this.backends.upsert1(id);
    if (slot < 0) return -slot;
    const v = this.backends.values;
    v[slot * 3 + BackendValue.ADDR] = addr;
    v[slot * 3 + BackendValue.PORT] = port;
    v[slot * 3 + BackendValue.PROTO] = proto;
    return 0;
  }

  deleteBackend(id: number): boolean {
    return this.backends.delete1(id);
  }

  upsertRevNat(index: number, addr: number, port: number): number {
    if (!isIndex(index) || !isU32(addr) || !isPort(port)) return MapError.INVALID;
    const slot = this.revNat.upsert1(index);
    if (slot < 0) return -slot;
    this.revNat.values[slot * 2 + RevNatValue.ADDR] = addr;
    this.revNat.values[slot * 2 + RevNatValue.PORT] = port;
    return 0;
  }

  deleteRevNat(index: number): boolean {
    return this.revNat.delete1(index);
  }

  private upsertSlot(vip: number, port: number, proto: number, slot: number): number {
    const key = this.services.key;
    key[0] = vip;
    key[1] = ((port << 16) | (proto << 8)) >>> 0;
    key[2] = slot;
    return this.services.upsert(); // capacity checked by the caller
  }

  private deleteSlot(vip: number, port: number, proto: number, slot: number): void {
    const key = this.services.key;
    key[0] = vip;
    key[1] = ((port << 16) | (proto << 8)) >>> 0;
    key[2] = slot;
    this.services.delete();
  }

  /** Keeps the (revNat, backend) pairs in step with the frontends that list them (several frontends share one revNat). */
  private syncAffinityMatch(oldRevNat: number, oldIds: readonly number[], revNat: number, ids: readonly number[]): void {
    for (const id of ids) this.affinityMatch.upsert2(revNat, id);
    for (const id of oldIds) {
      if (oldRevNat === revNat && ids.includes(id)) continue;
      if (!this.anyFrontendLists(oldRevNat, id)) this.affinityMatch.delete2(oldRevNat, id);
    }
  }

  private anyFrontendLists(revNat: number, id: number): boolean {
    const keys = this.services.keys;
    const v = this.services.values;
    for (let s = this.services.nextSlot(-1); s >= 0; s = this.services.nextSlot(s)) {
      if (keys[s * 3 + 2] === 0) continue;
      if (v[s * SVC_VALUE_WORDS + SvcValue.REV_NAT_INDEX] === revNat && v[s * SVC_VALUE_WORDS + SvcValue.BACKEND_ID] === id) {
        return true;
      }
    }
    return false;
  }
}

function isU32(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
}

function isPort(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}

function isIndex(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= 65535;
}
