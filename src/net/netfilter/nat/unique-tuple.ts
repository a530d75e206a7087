// Choosing a NAT binding (nf_nat_core.c get_unique_tuple): keep the packet's own tuple when it is
// in range and free, reuse an existing mapping of the same source, pick the address by jhash (as
// the kernel, so choices match), and find a free port/id with the kernel's ranges, random offsets
// (seeded RNG) and shrinking retry rounds, evicting a TIME_WAIT clash on the last attempts.

import type { SeededRng } from "../../../util/rng.js";
import { IPPROTO_ICMP, IPPROTO_SCTP, IPPROTO_TCP, IPPROTO_UDP, invertPorts, type Conntrack } from "../conntrack/conntrack.js";
import { CtDir, F, IPS_NAT_MASK, Ips, TD_END } from "../conntrack/table.js";
import { TcpCt } from "../conntrack/tcp-states.js";
import { NatManip } from "../hooks.js";
import { beAsLe, jhash2, reciprocalScale } from "./jhash.js";
import { NAT_RANGE_PROTO_RANDOM_ALL, NatRangeFlag, type NatRange } from "./range.js";

const NF_NAT_MAX_ATTEMPTS = 128;
const NF_NAT_HARDER_THRESH = NF_NAT_MAX_ATTEMPTS / 4;

/** A conntrack tuple being worked on (ports word as in the table: sport << 16 | dport; ICMP id << 16 | type/code). */
export class NatTuple {
  src = 0;
  dst = 0;
  ports = 0;
  proto = 0;

  set(src: number, dst: number, ports: number, proto: number): this {
    this.src = src >>> 0;
    this.dst = dst >>> 0;
    this.ports = ports >>> 0;
    this.proto = proto;
    return this;
  }
  copy(o: NatTuple): this {
    return this.set(o.src, o.dst, o.ports, o.proto);
  }
  equals(o: NatTuple): boolean {
    return this.src === o.src && this.dst === o.dst && this.ports === o.ports && this.proto === o.proto;
  }
  get sport(): number {
    return this.ports >>> 16;
  }
  get dport(): number {
    return this.ports & 0xffff;
  }
}

function hasPortKey(proto: number): boolean {
  return proto === IPPROTO_TCP || proto === IPPROTO_UDP || proto === IPPROTO_SCTP || proto === 136;
}

/** Allows clash resolution later (l4proto->allow_clash: UDP and UDP-Lite). */
function allowClash(proto: number): boolean {
  return proto === IPPROTO_UDP || proto === 136;
}

/** The port (or ICMP id) a manip changes. */
function keyOf(t: NatTuple, manip: number): number {
  if (t.proto === IPPROTO_ICMP || manip === NatManip.SRC) return t.ports >>> 16;
  return t.ports & 0xffff;
}

function setKey(t: NatTuple, manip: number, key: number): void {
  if (t.proto === IPPROTO_ICMP || manip === NatManip.SRC) t.ports = ((key << 16) | (t.ports & 0xffff)) >>> 0;
  else t.ports = ((t.ports & 0xffff0000) | key) >>> 0;
}

export class NatPlanner {
  constructor(
    private readonly ct: Conntrack,
    private readonly rng: SeededRng,
  ) {}

  /** nf_nat_used_tuple: would this tuple's reply collide with another confirmed entry? */
  usedTuple(t: NatTuple, ignore: number): boolean {
    const inv = invertPorts(t.proto, t.ports);
    return this.ct.tupleTaken(t.dst, t.src, inv < 0 ? t.ports : inv, t.proto, ignore);
  }

  /** nf_nat_used_tuple_new: as usedTuple, but tolerating the rare reverse clash of two un-NATed UDP flows. */
  private usedTupleNew(t: NatTuple, i: number): boolean {
    if (!this.usedTuple(t, i)) return false;
    if (!allowClash(t.proto)) return true;
    const table = this.ct.table;
    if (table.status(i) & IPS_NAT_MASK) return true;
    let n = this.ct.find(t.src, t.dst, t.ports, t.proto);
    if (n < 0) {
      const inv = invertPorts(t.proto, t.ports);
      n = this.ct.find(t.dst, t.src, inv, t.proto);
      if (n < 0) return false;
    }
    if ((n & 1) !== CtDir.REPLY) return true;
    const j = n >> 1;
    if (table.status(j) & IPS_NAT_MASK) return true;
    const sameFlow =
      table.src(j, 0) === table.src(i, 1) &&
      table.dst(j, 0) === table.dst(i, 1) &&
      table.ports(j, 0) === table.ports(i, 1) &&
      table.src(j, 1) === table.src(i, 0) &&
      table.dst(j, 1) === table.dst(i, 0) &&
      table.ports(j, 1) === table.ports(i, 0);
    return !sameFlow;
  }

  /** nf_nat_used_tuple_harder: on the last attempts for a TCP SYN, evict a TIME_WAIT clash whose sequence has moved on. */
  private usedTupleHarder(t: NatTuple, i: number, attemptsLeft: number): boolean {
    const table = this.ct.table;
    if (attemptsLeft > NF_NAT_HARDER_THRESH || t.proto !== IPPROTO_TCP || table.get(i, F.TCP_STATE) !== TcpCt.SYN_SENT) {
      return this.usedTuple(t, i);
    }
    const inv = invertPorts(t.proto, t.ports);
    const n = this.ct.find(t.dst, t.src, inv, t.proto);
    if (n < 0) return false;
    const j = n >> 1;
    if ((n & 1) === CtDir.ORIGINAL || j === i) return true;
    const flags = table.status(j);
    if (table.get(j, F.TCP_STATE) < TcpCt.TIME_WAIT) return true;
    if (flags & (Ips.FIXED_TIMEOUT | Ips.DYING)) return true;
    if (!(flags & Ips.SRC_NAT)) return true;
    const advanced = ((table.u32[table.tdBase(i, 0) + TD_END]! - table.u32[table.tdBase(j, 0) + TD_END]!) | 0) > 0;
    if (!advanced) return true;
    this.ct.kill(j);
    return false;
  }

  private static inRange(t: NatTuple, r: NatRange): boolean {
    if (r.flags & NatRangeFlag.MAP_IPS && (t.src < r.minAddr || t.src > r.maxAddr)) return false;
    if (!(r.flags & NatRangeFlag.PROTO_SPECIFIED)) return true;
    return NatPlanner.l4InRange(t, NatManip.SRC, r);
  }

  private static l4InRange(t: NatTuple, manip: number, r: NatRange): boolean {
    if (t.proto !== IPPROTO_ICMP && !hasPortKey(t.proto)) return true;
    const key = keyOf(t, manip);
    return key >= r.minPort && key <= r.maxPort;
  }

  /** find_appropriate_src: an existing binding of the same original source that fits the range. */
  private findAppropriateSrc(orig: NatTuple, result: NatTuple, r: NatRange): boolean {
    const table = this.ct.table;
    const sport = orig.ports >>> 16;
    let j = table.bySourceNext(orig.src, sport, orig.proto, -1);
    while (j >= 0) {
      if (table.proto(j) === orig.proto && table.src(j, 0) === orig.src && table.sport(j, 0) === sport) {
        // Source part from the inverted reply tuple, destination part from ours.
        const replyDport = table.dport(j, 1);
        result.set(table.dst(j, 1), orig.dst, ((replyDport << 16) | (orig.ports & 0xffff)) >>> 0, orig.proto);
        if (orig.proto === IPPROTO_ICMP) result.ports = ((table.sport(j, 1) << 16) | (orig.ports & 0xffff)) >>> 0;
        if (NatPlanner.inRange(result, r)) return true;
      }
      j = table.bySourceNext(orig.src, sport, orig.proto, j);
    }
    return false;
  }

  /** find_best_ips_proto: the address from the range, by jhash of the addresses as the kernel hashes them. */
  private static bestIp(t: NatTuple, r: NatRange, manip: number): void {
    if (!(r.flags & NatRangeFlag.MAP_IPS)) return;
    let chosen: number;
    if (r.minAddr === r.maxAddr) {
      chosen = r.minAddr;
    } else {
      const j = jhash2([beAsLe(t.src), 0, 0, 0], r.flags & NatRangeFlag.PERSISTENT ? 0 : beAsLe(t.dst));
      chosen = (r.minAddr + reciprocalScale(j, r.maxAddr - r.minAddr + 1)) >>> 0;
    }
    if (manip === NatManip.SRC) t.src = chosen;
    else t.dst = chosen;
  }

  /** nf_nat_l4proto_unique_tuple. */
  private uniquePort(t: NatTuple, r: NatRange, manip: number, i: number): void {
    let min: number;
    let size: number;
    if (t.proto === IPPROTO_ICMP) {
      if (!(r.flags & NatRangeFlag.PROTO_SPECIFIED)) {
        min = 0;
        size = 65536;
      } else {
        min = r.minPort;
        size = r.maxPort - r.minPort + 1;
      }
    } else if (hasPortKey(t.proto)) {
      if (!(r.flags & NatRangeFlag.PROTO_SPECIFIED)) {
        if (manip === NatManip.DST) return;
        const key = keyOf(t, manip);
        if (key < 1024) {
          if (key < 512) {
            min = 1;
            size = 511;
          } else {
            min = 600;
            size = 1023 - 600 + 1;
          }
        } else {
          min = 1024;
          size = 65535 - 1024 + 1;
        }
      } else {
        const lo = Math.min(r.minPort, r.maxPort);
        min = lo;
        size = Math.max(r.minPort, r.maxPort) - lo + 1;
      }
    } else {
      return;
    }
    let off = r.flags & NAT_RANGE_PROTO_RANDOM_ALL || manip !== NatManip.DST ? this.rng.nextU32() & 0xffff : 0;
    let attempts = Math.min(size, NF_NAT_MAX_ATTEMPTS);
    for (;;) {
      for (let k = 0; k < attempts; k++, off = (off + 1) & 0xffff) {
        setKey(t, manip, min + (off % size));
        if (!this.usedTupleHarder(t, i, attempts - k)) return;
      }
      if (attempts >= size || attempts < 16) return;
      attempts = Math.floor(attempts / 2);
      off = this.rng.nextU32() & 0xffff;
    }
  }

  /** get_unique_tuple: writes the new tuple for `orig` (the packet's current tuple) into `out`. */
  uniqueTuple(out: NatTuple, orig: NatTuple, r: NatRange, i: number, manip: number): void {
    if (manip === NatManip.SRC && !(r.flags & NAT_RANGE_PROTO_RANDOM_ALL)) {
      if (NatPlanner.inRange(orig, r)) {
        if (!this.usedTupleNew(orig, i)) {
          out.copy(orig);
          return;
        }
      } else if (this.findAppropriateSrc(orig, out, r)) {
        if (!this.usedTuple(out, i)) return;
      }
    }
    out.copy(orig);
    NatPlanner.bestIp(out, r, manip);
    if (!(r.flags & NAT_RANGE_PROTO_RANDOM_ALL)) {
      if (r.flags & NatRangeFlag.PROTO_SPECIFIED) {
        if (NatPlanner.l4InRange(out, manip, r) && (r.minPort === r.maxPort || !this.usedTuple(out, i))) return;
      } else if (!this.usedTuple(out, i)) {
        return;
      }
    }
    this.uniquePort(out, r, manip, i);
  }
}
