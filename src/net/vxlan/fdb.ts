// The VXLAN device's own forwarding table (`bridge fdb ... dev vxlan0 self`): inner MAC -> remote
// VTEP(s). The all-zeros MAC is the default entry whose remotes form the flood list for unknown and
// broadcast destinations. Entries added by a user (flannel's, `bridge fdb add/append/replace`) are
// PERMANENT or NOARP and never age; learned ones are REACHABLE and age out `ageing` after they were
// last learned or refreshed by received traffic (Linux 6.15+ ages by 'updated', not by Tx use).

import { err, ok, type Result } from "../../util/result.js";
import { isGroupMac } from "../../util/mac.js";

/** ndm_state values the VXLAN FDB uses. */
export const VxlanNud = { REACHABLE: 0x02, NOARP: 0x40, PERMANENT: 0x80 } as const;

/** One destination of an entry: remote VTEP address, UDP port and VNI (0 = the device's). */
export interface VxlanRemote {
  readonly ip: number;
  readonly port: number;
  readonly vni: number;
}

export class VxlanFdbEntry {
  readonly remotes: VxlanRemote[] = [];
  constructor(
    readonly mac: number,
    public state: number,
    /** Last learned, refreshed or changed (ns). */
    public updated: number,
    /** Last used to transmit (ns). */
    public used: number,
  ) {}

  get isStatic(): boolean {
    return (this.state & (VxlanNud.PERMANENT | VxlanNud.NOARP)) !== 0;
  }
}

/** The default-destination key. */
export const ALL_ZEROS_MAC = 0;

/** What learning from a received frame decided (vxlan_snoop). */
export const SnoopResult = { KNOWN: 0, CREATED: 1, MIGRATED: 2, STATIC_CONFLICT: 3, INVALID_SOURCE: 4 } as const;
export type SnoopResult = (typeof SnoopResult)[keyof typeof SnoopResult];

export interface VxlanFdbError {
  readonly mac: number;
  readonly reason: string;
}

export class VxlanFdb {
  private readonly map = new Map<number, VxlanFdbEntry>();
  /** Bumped whenever an entry is created or removed (the transmit memo below holds until then). */
  private membership = 0;
  /**
   * Transmit's last answer: the destination MAC, the entry it resolved to (its own or the all-zeros
   * default; undefined = neither) and the membership then. A tunnel sends to the same few MACs in
   * runs, and which entry a MAC resolves to changes only with membership; the entry's own ageing and
   * remotes are read live at each use.
   */
  private txMac = -1;
  private txEntry: VxlanFdbEntry | undefined = undefined;
  private txMembership = -1;

  constructor(public ageingNs: number) {}

  get size(): number {
    return this.map.size;
  }

  /** The live entry for mac (an aged-out learned entry is removed on the way). */
  find(mac: number, now: number): VxlanFdbEntry | undefined {
    const e = this.map.get(mac);
    if (e === undefined || this.live(e, now)) return e;
    this.map.delete(mac);
    this.membership++;
    return undefined;
  }

  private live(e: VxlanFdbEntry, now: number): boolean {
    return e.isStatic || e.updated + this.ageingNs > now;
  }

  /** vxlan_find_mac on transmit: like find, and records the use. */
  lookupTx(mac: number, now: number): VxlanFdbEntry | undefined {
    const e = this.find(mac, now);
    if (e !== undefined) e.used = now;
    return e;
  }

  /**
   * vxlan_xmit's lookup: the entry for mac, else the all-zeros default (flood list), recording the use
   * on the one returned. Equal to lookupTx(mac) ?? lookupTx(ALL_ZEROS_MAC), without the map lookups
   * while the memo holds (same MAC, same membership, its entry still live).
   */
  lookupTxOrDefault(mac: number, now: number): VxlanFdbEntry | undefined {
    if (mac === this.txMac && this.txMembership === this.membership) {
      const e = this.txEntry;
      if (e === undefined) return undefined;
      if (this.live(e, now)) {
        e.used = now;
        return e;
      }
    }
    const e = this.lookupTx(mac, now) ?? this.lookupTx(ALL_ZEROS_MAC, now);
    this.txMac = mac;
    this.txEntry = e;
    this.txMembership = this.membership;
    return e;
  }

  /** `bridge fdb add` (NLM_F_EXCL): fails when the MAC has an entry. */
  add(mac: number, remote: VxlanRemote, state: number, now: number): Result<VxlanFdbEntry, VxlanFdbError> {
    if (this.find(mac, now) !== undefined) return err({ mac, reason: "RTNETLINK answers: File exists" });
    return ok(this.create(mac, remote, state, now));
  }

  /** `bridge fdb append`: adds a remote to an all-zeros or multicast entry (the flood list). */
  append(mac: number, remote: VxlanRemote, state: number, now: number): Result<VxlanFdbEntry, VxlanFdbError> {
    const e = this.find(mac, now);
    if (e === undefined) return ok(this.create(mac, remote, state, now));
    if (mac !== ALL_ZEROS_MAC && !isGroupMac(mac)) return err({ mac, reason: "append is only for the all-zeros and multicast entries" });
    if (!e.remotes.some((r) => sameRemote(r, remote))) e.remotes.push(remote);
    this.setState(e, state, now);
    return ok(e);
  }

  /** `bridge fdb replace` / netlink NLM_F_REPLACE (what flanneld does): creates or replaces the first remote. */
  replace(mac: number, remote: VxlanRemote, state: number, now: number): VxlanFdbEntry {
    const e = this.find(mac, now);
    if (e === undefined) return this.create(mac, remote, state, now);
    if (e.remotes.length === 0) e.remotes.push(remote);
    else if (!e.remotes.some((r) => sameRemote(r, remote))) e.remotes[0] = remote;
    this.setState(e, state, now);
    return e;
  }

  /** `bridge fdb del`: one remote of the live entry (ip != 0) or the whole entry. */
  delete(mac: number, ip: number, now: number): boolean {
    const e = this.find(mac, now);
    if (e === undefined) return false;
    if (ip !== 0 && e.remotes.length > 1) {
      const i = e.remotes.findIndex((r) => r.ip === ip);
      if (i < 0) return false;
      e.remotes.splice(i, 1);
      return true;
    }
    if (ip !== 0 && e.remotes[0]?.ip !== ip) return false;
    this.membership++;
    return this.map.delete(mac);
  }

  /**
   * vxlan_snoop for a frame from srcIp: a new MAC is learned (REACHABLE, default port and VNI); a
   * known one is refreshed, or migrated to the new VTEP unless the entry is static (then the frame
   * is dropped). Multicast and zero source MACs are refused.
   */
  snoop(mac: number, srcIp: number, now: number): SnoopResult {
    if (mac === 0 || isGroupMac(mac)) return SnoopResult.INVALID_SOURCE;
    const e = this.find(mac, now);
    if (e === undefined) {
      this.create(mac, { ip: srcIp, port: 0, vni: 0 }, VxlanNud.REACHABLE, now);
      return SnoopResult.CREATED;
    }
    const first = e.remotes[0];
    if (first !== undefined && first.ip === srcIp) {
      e.updated = now;
      return SnoopResult.KNOWN;
    }
    if (e.isStatic) return SnoopResult.STATIC_CONFLICT;
    e.remotes[0] = { ip: srcIp, port: first?.port ?? 0, vni: first?.vni ?? 0 };
    e.updated = now;
    return SnoopResult.MIGRATED;
  }

  /** Live entries, sorted by MAC (allocates: for listings and tests). */
  entries(now: number): VxlanFdbEntry[] {
    const out: VxlanFdbEntry[] = [];
    for (const mac of [...this.map.keys()]) {
      const e = this.find(mac, now);
      if (e !== undefined) out.push(e);
    }
    return out.sort((a, b) => a.mac - b.mac);
  }

  private create(mac: number, remote: VxlanRemote, state: number, now: number): VxlanFdbEntry {
    const e = new VxlanFdbEntry(mac, state, now, now);
    e.remotes.push(remote);
    this.map.set(mac, e);
    this.membership++;
    return e;
  }

  private setState(e: VxlanFdbEntry, state: number, now: number): void {
    if (e.state !== state) {
      e.state = state;
      e.updated = now;
    }
  }
}

function sameRemote(a: VxlanRemote, b: VxlanRemote): boolean {
  return a.ip === b.ip && a.port === b.port && a.vni === b.vni;
}
