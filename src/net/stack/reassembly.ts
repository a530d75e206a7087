// IPv4 reassembly for local delivery as ip_defrag does it: queues keyed by (src, dst, id, protocol),
// RFC 5722-style handling (a fragment inside an existing run is a duplicate and dropped alone, any other
// overlap discards the whole datagram), ipfrag_high_thresh memory bound, and the ipfrag_time timeout
// (30 s) that sends ICMP time exceeded (fragment reassembly) when the first fragment had arrived.

import type { SkBuff } from "../../skb/skbuff.js";
import { DropReason } from "../../../datapath/reasons.js";
import { read16, read32 } from "../../wire/bytes.js";
import { setIpv4HeaderChecksum } from "../../wire/checksum.js";
import { DeliveryKind } from "../../trace/ledger.js";
import type { NetDevice } from "../device.js";
import { IP_DF, IP_MF, IP_OFFSET_MASK, newPacket } from "./ip-packet.js";
import { icmpSend, IcmpType, TimeExceededCode } from "./icmp-send.js";
import type { NetNamespace } from "./namespace.js";
import { skbTruesize } from "./neigh-parms.js";
import { RouteFlag } from "./packet-context.js";

const MAX_DATAGRAM = 65535;

interface Fragment {
  readonly skb: SkBuff;
  readonly offset: number;
  readonly end: number;
}

class FragQueue {
  readonly frags: Fragment[] = [];
  /** Contiguous runs built as the kernel builds them (extended only when appended at the tail). */
  readonly runs: { start: number; end: number }[] = [];
  len = 0;
  meat = 0;
  firstIn = false;
  lastIn = false;
  maxSize = 0;
  maxDfSize = 0;
  truesize = 0;
  timer = 0;
  headPktType = 0;
  headDev: NetDevice | null = null;
  constructor(readonly key: string) {}
}

export class Reassembler {
  private readonly queues = new Map<string, FragQueue>();
  private memory = 0;
  private readonly onExpire = (q: FragQueue): void => this.expire(q);

  constructor(private readonly ns: NetNamespace) {}

  /** Bytes (truesize) held in reassembly queues. */
  get memoryUsed(): number {
    return this.memory;
  }

  get pending(): number {
    return this.queues.size;
  }

  /**
   * Takes one fragment (head at its IPv4 header). Returns the reassembled datagram (a new packet) when
   * this fragment completed it; null when the fragment was queued or dropped.
   */
  add(skb: SkBuff, dev: NetDevice, pktType: number): SkBuff | null {
    const ns = this.ns;
    const ip = ns.counters.ip;
    ip.ReasmReqds++;
    if (this.memory > ns.sysctl.ipfragHighThresh) {
      ip.ReasmFails++;
      ns.dropPacket(skb, dev, "defrag", DropReason.QUEUE_FULL, "net/stack/reassembly:mem", `reassembly memory above ipfrag_high_thresh ${ns.sysctl.ipfragHighThresh}`);
      return null;
    }
    const b = skb.data;
    const at = skb.head;
    const key = `${read32(b, at + 12)}>${read32(b, at + 16)}#${read16(b, at + 4)}/${b[at + 9]}`;
    let q = this.queues.get(key);
    if (q === undefined) {
      q = new FragQueue(key);
      q.timer = ns.world.sim.schedule(ns.sysctl.ipfragTimeNs, this.onExpire, q);
      this.queues.set(key, q);
    }
    const hlen = (b[at]! & 0x0f) * 4;
    const fragWord = read16(b, at + 6);
    const offset = (fragWord & IP_OFFSET_MASK) * 8;
    let end = offset + skb.length - hlen;
    if ((fragWord & IP_MF) === 0) {
      if (end < q.len || (q.lastIn && end !== q.len)) return this.fail(q, skb, dev, "last fragment disagrees with the datagram length");
      q.lastIn = true;
      q.len = end;
    } else {
      end &= ~7;
      if (end > q.len) {
        if (q.lastIn) return this.fail(q, skb, dev, "fragment beyond the end of the datagram");
        q.len = end;
      }
    }
    if (end === offset) return this.fail(q, skb, dev, "empty fragment");
    const verdict = insert(q, offset, end);
    if (verdict === "dup") {
      ns.dropPacket(skb, dev, "defrag", DropReason.INVALID_PACKET, "net/stack/reassembly:duplicate", "duplicate IPv4 fragment");
      return null;
    }
    if (verdict === "overlap") {
      ip.ReasmFails++;
      ns.counters.ipExt.ReasmOverlaps++;
      return this.fail(q, skb, dev, "overlapping IPv4 fragments (RFC 5722): datagram discarded", false);
    }
    skb.trim(hlen + end - offset);
    q.frags.push({ skb, offset, end });
    q.frags.sort((x, y) => x.offset - y.offset);
    q.meat += end - offset;
    const size = skbTruesize(skb.length);
    q.truesize += size;
    this.memory += size;
    if (offset === 0) {
      q.firstIn = true;
      q.headPktType = pktType;
      q.headDev = dev;
    }
    const fragSize = skb.length;
    if (fragSize > q.maxSize) q.maxSize = fragSize;
    if ((fragWord & IP_DF) !== 0 && fragSize > q.maxDfSize) q.maxDfSize = fragSize;
    if (!(q.firstIn && q.lastIn && q.meat === q.len)) return null;
    return this.reassemble(q, dev);
  }

  private reassemble(q: FragQueue, dev: NetDevice): SkBuff | null {
    const ns = this.ns;
    const head = q.frags[0]!.skb;
    const hb = head.data;
    const hlen = (hb[head.head]! & 0x0f) * 4;
    const total = hlen + q.len;
    if (total > MAX_DATAGRAM) {
      ns.counters.ip.ReasmFails++;
      this.kill(q, dev, DropReason.INVALID_PACKET, "net/stack/reassembly:oversize", `reassembled datagram of ${total} bytes exceeds 65535`);
      return null;
    }
    const out = newPacket(ns.world, total);
    const ob = out.data;
    ob.set(hb.subarray(head.head, head.head + hlen), out.head);
    for (const f of q.frags) {
      const fb = f.skb.data;
      const fh = (fb[f.skb.head]! & 0x0f) * 4;
      ob.set(fb.subarray(f.skb.head + fh, f.skb.tail), out.head + hlen + f.offset);
    }
    ob[out.head + 2] = total >>> 8;
    ob[out.head + 3] = total & 0xff;
    const df = q.maxDfSize === q.maxSize && q.maxDfSize > 0 ? IP_DF : 0;
    ob[out.head + 6] = df >>> 8;
    ob[out.head + 7] = 0;
    setIpv4HeaderChecksum(ob, out.head, hlen);
    out.copyPacketMeta(head);
    this.release(q);
    for (let i = 0; i < q.frags.length; i++) ns.world.ledger.deliver(DeliveryKind.SPLIT);
    ns.counters.ip.ReasmOKs++;
    return out;
  }

  /** Discards the queue and the offending fragment (ReasmFails counted unless told otherwise). */
  private fail(q: FragQueue, skb: SkBuff, dev: NetDevice, why: string, count = true): null {
    if (count) this.ns.counters.ip.ReasmFails++;
    this.ns.dropPacket(skb, dev, "defrag", DropReason.INVALID_PACKET, "net/stack/reassembly:corrupt", why);
    this.kill(q, dev, DropReason.INVALID_PACKET, "net/stack/reassembly:corrupt", why);
    return null;
  }

  private kill(q: FragQueue, dev: NetDevice | null, reason: number, site: string, why: string): void {
    this.release(q);
    for (const f of q.frags) this.ns.dropPacket(f.skb, dev, "defrag", reason, site, why);
  }

  private release(q: FragQueue): void {
    if (q.timer !== 0) this.ns.world.sim.cancel(q.timer);
    q.timer = 0;
    this.memory -= q.truesize;
    this.queues.delete(q.key);
  }

  /** ip_expire: ICMP time exceeded (reassembly) quoting the first fragment, then the queue is dropped. */
  private expire(q: FragQueue): void {
    q.timer = 0;
    const ns = this.ns;
    ns.counters.ip.ReasmFails++;
    ns.counters.ip.ReasmTimeout++;
    const first = q.frags[0];
    if (q.firstIn && first !== undefined && first.offset === 0) {
      icmpSend(ns, first.skb, IcmpType.TIME_EXCEEDED, TimeExceededCode.FRAGMENT_REASSEMBLY, 0, q.headPktType, RouteFlag.LOCAL | RouteFlag.INPUT, q.headDev);
    }
    this.kill(q, q.headDev, DropReason.REASSEMBLY_TIMEOUT, "net/stack/reassembly:timeout", `reassembly timed out after ${ns.sysctl.ipfragTimeNs / 1e9} s with fragments missing`);
  }
}

/** inet_frag_queue_insert: "ok", "dup" (inside one run) or "overlap". */
function insert(q: FragQueue, offset: number, end: number): "ok" | "dup" | "overlap" {
  const runs = q.runs;
  const last = runs[runs.length - 1];
  if (last === undefined) {
    runs.push({ start: offset, end });
    return "ok";
  }
  if (last.end < end) {
    if (offset < last.end) return "overlap";
    if (offset === last.end) last.end = end;
    else runs.push({ start: offset, end });
    return "ok";
  }
  for (const r of runs) {
    if (end <= r.start || offset >= r.end) continue;
    return offset >= r.start && end <= r.end ? "dup" : "overlap";
  }
  let i = 0;
  while (i < runs.length && runs[i]!.start < offset) i++;
  runs.splice(i, 0, { start: offset, end });
  return "ok";
}
