// NAT bindings on conntrack entries (nf_nat_setup_info, null bindings) and applying them to packets
// of the flow (nf_nat_packet) and to ICMP errors that quote it (nf_nat_icmp_reply_translation).

import type { SeededRng } from "../../../util/rng.js";
import { invertPorts, type Conntrack } from "../conntrack/conntrack.js";
import { IPS_NAT_DONE_MASK, IPS_NAT_MASK, Ips } from "../conntrack/table.js";
import { NatManip } from "../hooks.js";
import { manipPacket, translateIcmpError } from "./manip.js";
import { NatRangeFlag, type NatRange } from "./range.js";
import { NatPlanner, NatTuple } from "./unique-tuple.js";

/** The IPS_*_NAT bit a hook's manip applies for a packet in direction dir (nf_nat_packet's statusbit). */
function statusBitFor(manip: number, dir: number): number {
  const bit = manip === NatManip.SRC ? Ips.SRC_NAT : Ips.DST_NAT;
  return dir === 1 ? bit ^ IPS_NAT_MASK : bit;
}

export class NatEngine {
  readonly planner: NatPlanner;
  private readonly curr = new NatTuple();
  private readonly next = new NatTuple();
  /** Packets (and quoted headers of ICMP errors) rewritten, monotonic (read by metrics). */
  rewrites = 0;

  constructor(
    private readonly ct: Conntrack,
    rng: SeededRng,
  ) {
    this.planner = new NatPlanner(ct, rng);
  }

  /** nf_nat_initialized: has this manip been decided for the entry? */
  initialized(i: number, manip: number): boolean {
    return (this.ct.table.status(i) & (manip === NatManip.SRC ? Ips.SRC_NAT_DONE : Ips.DST_NAT_DONE)) !== 0;
  }

  /** nf_nat_setup_info: binds the unconfirmed entry i to a tuple from range (no-op once confirmed). */
  setup(i: number, range: NatRange, manip: number): void {
    const t = this.ct.table;
    if (t.confirmed(i) || this.initialized(i, manip)) return;
    const proto = t.proto(i);
    const curr = this.curr.set(t.dst(i, 1), t.src(i, 1), invertPorts(proto, t.ports(i, 1)), proto);
    const next = this.next;
    this.planner.uniqueTuple(next, curr, range, i, manip);
    if (!next.equals(curr)) {
      t.setReply(i, next.dst, next.src, invertPorts(proto, next.ports));
      t.setStatus(i, manip === NatManip.SRC ? Ips.SRC_NAT : Ips.DST_NAT);
    }
    if (manip === NatManip.SRC) t.linkBySource(i);
    t.setStatus(i, manip === NatManip.SRC ? Ips.SRC_NAT_DONE : Ips.DST_NAT_DONE);
  }

  /** nf_nat_alloc_null_binding: "no translation", which may still move a clashing source port. */
  nullBinding(i: number, manip: number): void {
    const t = this.ct.table;
    const addr = manip === NatManip.SRC ? t.dst(i, 1) : t.src(i, 1);
    this.setup(i, { flags: NatRangeFlag.MAP_IPS, minAddr: addr, maxAddr: addr, minPort: 0, maxPort: 0 }, manip);
  }

  /**
   * nf_nat_packet: rewrites the packet at ip when the entry's binding applies to this hook and
   * direction. `l4` = false for a later fragment: only its IP header is rewritten (the first
   * fragment's L4 checksum already covers the whole datagram).
   */
  apply(i: number, dir: number, manip: number, bytes: Uint8Array, ip: number, end: number, l4 = true): boolean {
    const t = this.ct.table;
    if (!(t.status(i) & statusBitFor(manip, dir))) return true;
    const other = 1 - dir;
    const proto = t.proto(i);
    // Aim to look like the inverse of the other direction.
    this.rewrites++;
    return manipPacket(bytes, ip, end, t.dst(i, other), t.src(i, other), invertPorts(proto, t.ports(i, other)), l4 ? proto : 0, manip);
  }

  /** True when apply() would rewrite a packet of direction dir at this manip. */
  applies(i: number, dir: number, manip: number): boolean {
    return (this.ct.table.status(i) & statusBitFor(manip, dir)) !== 0;
  }

  /** nf_nat_icmp_reply_translation for an ICMP error RELATED to entry i in direction dir; false = drop. */
  translateError(i: number, dir: number, manip: number, bytes: Uint8Array, ip: number, end: number): boolean {
    const t = this.ct.table;
    const status = t.status(i);
    const icmpType = bytes[ip + (bytes[ip]! & 0x0f) * 4]!;
    if (icmpType === 5 && ((status & IPS_NAT_DONE_MASK) !== IPS_NAT_DONE_MASK || status & IPS_NAT_MASK)) return false;
    const other = 1 - dir;
    const proto = t.proto(i);
    const ports = t.ports(i, other);
    const applies = (status & statusBitFor(manip, dir)) !== 0;
    this.rewrites++; // the quoted header is always translated; the outer one when `applies`
    return translateIcmpError(
      bytes,
      ip,
      end,
      t.src(i, other),
      t.dst(i, other),
      ports,
      invertPorts(proto, ports),
      proto,
      manip,
      applies,
    );
  }
}
