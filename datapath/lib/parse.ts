// Packet parsing for programs: the wire layer's fast parser over the skb into ctx.hdr, then the flow
// tuple the rest of the datapath uses (ICMP echo ids stand in for ports, as conntrack treats them).
import { IPPROTO_ICMP } from "../../src/wire/checksum.js";
import { ParseStatus, headersError, parseFrame, parseIp } from "../../src/wire/headers.js";
import { formatWireError } from "../../src/wire/errors.js";
import { IcmpType } from "../../src/wire/icmp.js";
import type { DatapathCtx } from "../ctx.js";
import { DropReason } from "../reasons.js";

/** parsePacket result for a well-formed frame that is not IPv4 (ARP, IPv6, ...): see ctx.hdr.etherType. */
export const NOT_IPV4 = -1;

/**
 * Parses the packet at skb.head (Ethernet on L2 interfaces, bare IP otherwise). Returns 0 for IPv4 with
 * the tuple loaded into ctx, NOT_IPV4, or a DropReason: INVALID_PACKET (site and detail say which field
 * at which byte offset of the frame) or FRAG_NOT_SUPPORTED for non-first fragments (no L4 header).
 */
export function parsePacket(ctx: DatapathCtx): number {
  const skb = ctx.skb;
  const hdr = ctx.hdr;
  const status = ctx.l2 ? parseFrame(skb.data, skb.head, skb.tail, hdr) : parseIp(skb.data, skb.head, skb.tail, hdr);
  if (status !== ParseStatus.OK) {
    ctx.site = "datapath/lib/parse:invalid";
    const e = headersError(hdr);
    if (e !== null) ctx.detail = formatWireError({ ...e, offset: e.offset - skb.head });
    return DropReason.INVALID_PACKET;
  }
  if (hdr.ipVersion !== 4) return NOT_IPV4;
  if (hdr.fragOffset !== 0) {
    ctx.site = "datapath/lib/parse:fragment";
    return DropReason.FRAG_NOT_SUPPORTED;
  }
  loadTuple(ctx);
  ctx.origSaddr = ctx.saddr;
  ctx.origDaddr = ctx.daddr;
  ctx.origSport = ctx.sport;
  ctx.origDport = ctx.dport;
  ctx.ctSaddr = ctx.saddr;
  ctx.ctDaddr = ctx.daddr;
  ctx.ctSport = ctx.sport;
  ctx.ctDport = ctx.dport;
  return 0;
}

/** Loads ctx's packet tuple from ctx.hdr (after a parse or re-parse). */
export function loadTuple(ctx: DatapathCtx): void {
  const hdr = ctx.hdr;
  ctx.proto = hdr.ipProto;
  ctx.saddr = hdr.src4 >>> 0;
  ctx.daddr = hdr.dst4 >>> 0;
  if (hdr.ipProto === IPPROTO_ICMP) {
    // Echo request: id as source "port"; echo reply: id as destination "port" (so a reply reverses the request).
    ctx.sport = hdr.icmpType === IcmpType.ECHO_REQUEST ? hdr.icmpId : 0;
    ctx.dport = hdr.icmpType === IcmpType.ECHO_REPLY ? hdr.icmpId : 0;
  } else {
    ctx.sport = hdr.srcPort;
    ctx.dport = hdr.dstPort;
  }
}
