// IPv4 addresses of a namespace's interfaces (`ip addr`): primary/secondary per subnet, scopes, and
// the kernel's source address choice inet_select_addr (same-subnet address of the device first, then
// its primary, then another interface's global address in interface order).

import type { NetDevice } from "../device.js";
import { ipv4InPrefix, ipv4Mask } from "../../util/ip.js";

/** Address scopes (rtnetlink RT_SCOPE_*): smaller is wider. */
export const AddrScope = { UNIVERSE: 0, SITE: 200, LINK: 253, HOST: 254, NOWHERE: 255 } as const;

export interface InterfaceAddress {
  readonly dev: NetDevice;
  readonly addr: number;
  readonly prefixLen: number;
  readonly scope: number;
  /** A second address in the subnet of an existing one on the same device (IFA_F_SECONDARY). */
  readonly secondary: boolean;
  /** Subnet broadcast address, 0 when the prefix is /31 or /32. */
  readonly broadcast: number;
}

export class AddressTable {
  private readonly byDev = new Map<number, InterfaceAddress[]>();
  /** Address -> number of interfaces carrying it (an address may sit on several devices). */
  /** Use count per assigned address, keyed by the address as a signed 32-bit integer (a small integer to the Map, not a heap number). */
  private readonly assigned = new Map<number, number>();
  /** Bumped by every add and remove: answers derived from the assigned addresses hold while it stays. */
  version = 0;

  /** Adds an address; returns null when the same address/prefix is already on the device. */
  add(dev: NetDevice, addr: number, prefixLen: number, scope: number): InterfaceAddress | null {
    const list = this.byDev.get(dev.ifindex) ?? [];
    let secondary = false;
    for (const a of list) {
      if (a.prefixLen === prefixLen && ipv4InPrefix(addr, a.addr, prefixLen)) {
        if (a.addr === addr) return null;
        secondary = true;
      }
    }
    const mask = ipv4Mask(prefixLen);
    const broadcast = prefixLen < 31 ? ((addr & mask) | (~mask >>> 0)) >>> 0 : 0;
    const entry: InterfaceAddress = { dev, addr: addr >>> 0, prefixLen, scope, secondary, broadcast };
    list.push(entry);
    this.byDev.set(dev.ifindex, list);
    this.assigned.set(entry.addr | 0, (this.assigned.get(entry.addr | 0) ?? 0) + 1);
    this.version++;
    return entry;
  }

  /** Removes an address; a removed primary takes its secondaries with it (promote_secondaries=0). */
  remove(dev: NetDevice, addr: number, prefixLen: number): InterfaceAddress[] {
    const list = this.byDev.get(dev.ifindex);
    if (list === undefined) return [];
    const target = list.find((a) => a.addr === addr >>> 0 && a.prefixLen === prefixLen);
    if (target === undefined) return [];
    this.version++;
    const removed = target.secondary
      ? [target]
      : list.filter((a) => a === target || (a.secondary && a.prefixLen === prefixLen && ipv4InPrefix(a.addr, addr, prefixLen)));
    this.byDev.set(dev.ifindex, list.filter((a) => !removed.includes(a)));
    for (const a of removed) {
      const n = (this.assigned.get(a.addr | 0) ?? 1) - 1;
      if (n === 0) this.assigned.delete(a.addr | 0);
      else this.assigned.set(a.addr | 0, n);
    }
    return removed;
  }

  removeDevice(dev: NetDevice): InterfaceAddress[] {
    const list = this.byDev.get(dev.ifindex) ?? [];
    for (const a of [...list]) this.remove(dev, a.addr, a.prefixLen);
    this.byDev.delete(dev.ifindex);
    return list;
  }

  ofDevice(dev: NetDevice): readonly InterfaceAddress[] {
    return this.byDev.get(dev.ifindex) ?? [];
  }

  /** True when the address is configured on some interface (inet_lookup_ifaddr). */
  isAssigned(addr: number): boolean {
    return this.assigned.has(addr | 0);
  }

  /** First primary address of the device, 0 if none. */
  primary(dev: NetDevice): number {
    for (const a of this.ofDevice(dev)) if (!a.secondary) return a.addr;
    return 0;
  }

  /** The primary address of dev whose subnet contains addr, or null. */
  subnetOf(dev: NetDevice, addr: number): InterfaceAddress | null {
    for (const a of this.ofDevice(dev)) if (!a.secondary && ipv4InPrefix(addr, a.addr, a.prefixLen)) return a;
    return null;
  }

  /** inet_addr_onlink: a and (when non-zero) b both lie in the subnet of one primary address of dev. */
  onlink(dev: NetDevice, a: number, b: number): boolean {
    for (const x of this.ofDevice(dev)) {
      if (x.secondary || !ipv4InPrefix(a, x.addr, x.prefixLen)) continue;
      if (b === 0 || ipv4InPrefix(b, x.addr, x.prefixLen)) return true;
    }
    return false;
  }

  /**
   * inet_select_addr(dev, dst, scope): on dev, the first primary address with scope <= `scope` whose
   * subnet holds dst, else the first such primary; when dev has none, the first primary address with
   * scope <= `scope` other than link scope on any device, in the order `devicesInOrder()` gives (asked only
   * then, so pass a long-lived function). 0 when none.
   */
  select(dev: NetDevice | null, dst: number, scope: number, devicesInOrder: () => Iterable<NetDevice>): number {
    if (dev !== null) {
      let first = 0;
      for (const a of this.ofDevice(dev)) {
        if (a.secondary || a.scope > scope) continue;
        if (dst === 0 || ipv4InPrefix(dst, a.addr, a.prefixLen)) return a.addr;
        if (first === 0) first = a.addr;
      }
      if (first !== 0) return first;
    }
    for (const other of devicesInOrder()) {
      for (const a of this.ofDevice(other)) {
        if (!a.secondary && a.scope !== AddrScope.LINK && a.scope <= scope) return a.addr;
      }
    }
    return 0;
  }

  all(): InterfaceAddress[] {
    return [...this.byDev.values()].flat();
  }
}
