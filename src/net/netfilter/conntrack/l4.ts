// The UDP, ICMP and generic trackers (nf_conntrack_proto_udp.c, _icmp.c, generic_packet): error
// checks, which ICMP types may open a "connection", and the timeouts incl. UDP's stream rule
// (replied and still active 2 s after the first packet: 120 s and ASSURED).

import type { ParsedHeaders } from "../../../wire/headers.js";
import { read16 } from "../../../wire/bytes.js";
import { l4ChecksumGood } from "../../../skb/l4-checksum.js";
import type { SkBuff } from "../../../skb/skbuff.js";
import type { Conntrack } from "./conntrack.js";
import { G as GImport, Ips as IpsImport } from "./table.js";
import { CtVerdict as CtVerdictImport } from "./tcp.js";
import { NS_PER_SECOND } from "./timeouts.js";

// Imported constant objects read through module constants: V8 folds their members into the code
// (a read through an import binding checks the binding and the object's shape at every use).
const G = GImport;
const Ips = IpsImport;
const CtVerdict = CtVerdictImport;

/** udp_error: truncated/malformed header or (at PREROUTING) a bad non-zero checksum. */
export function udpError(skb: SkBuff, bytes: Uint8Array, h: ParsedHeaders, verifyChecksum: boolean): boolean {
  const udpLen = h.ipTotalLen - h.ipHeaderLen;
  if (udpLen < 8) return true;
  const len = read16(bytes, h.l4Offset + 4);
  if (len > udpLen || len < 8) return true;
  if (read16(bytes, h.l4Offset + 6) === 0) return false;
  return verifyChecksum && !l4ChecksumGood(skb, bytes, h.l4Offset, udpLen, 17, h.src4, h.dst4);
}

/** nf_conntrack_udp_packet; a first fragment skips the length/checksum checks (they cover the whole datagram). */
export function udpPacket(ct: Conntrack, i: number, skb: SkBuff, bytes: Uint8Array, h: ParsedHeaders, verify: boolean, fragment: boolean): number {
  if (!fragment && udpError(skb, bytes, h, verify && ct.config.checksum)) return CtVerdict.INVALID;
  const t = ct.table;
  const to = ct.config.timeouts;
  const status = t.status(i);
  if ((status & Ips.CONFIRMED) === 0) t.setF(i, G.UDP_STREAM_TS, ct.clock.now + 2 * NS_PER_SECOND);
  if (status & Ips.SEEN_REPLY) {
    let extra = to.udp;
    let stream = false;
    if (ct.clock.now > t.getF(i, G.UDP_STREAM_TS)) {
      extra = to.udpStream;
      stream = (status & Ips.ASSURED) === 0;
    }
    ct.refresh(i, extra);
    if (status & Ips.NAT_CLASH) return CtVerdict.ACCEPT;
    if (stream) t.setStatus(i, Ips.ASSURED);
  } else {
    ct.refresh(i, to.udp);
  }
  return CtVerdict.ACCEPT;
}

/** Types that may start an ICMP "connection" (echo, timestamp, info, address mask requests). */
function icmpValidNew(type: number): boolean {
  return type === 8 || type === 13 || type === 15 || type === 17;
}

export function icmpPacket(ct: Conntrack, i: number): number {
  const origType = (ct.table.ports(i, 0) >>> 8) & 0xff;
  if (!icmpValidNew(origType)) return CtVerdict.INVALID;
  ct.refresh(i, ct.config.timeouts.icmp);
  return CtVerdict.ACCEPT;
}

/** GRE (nf_conntrack_proto_gre.c): 30 s until replied, then 180 s and ASSURED. Keys stay 0 (no PPTP helper). */
export function grePacket(ct: Conntrack, i: number): number {
  const t = ct.table;
  const status = t.status(i);
  if (status & Ips.SEEN_REPLY) {
    ct.refresh(i, ct.config.timeouts.greStream);
    if (!(status & Ips.NAT_CLASH)) t.setStatus(i, Ips.ASSURED);
  } else {
    ct.refresh(i, ct.config.timeouts.gre);
  }
  return CtVerdict.ACCEPT;
}

export function genericPacket(ct: Conntrack, i: number): number {
  ct.refresh(i, ct.config.timeouts.generic);
  return CtVerdict.ACCEPT;
}

/** NR_ICMP_TYPES: types above it are "a mystery" and INVALID. */
export const NR_ICMP_TYPES = 18;

/** icmp_is_err: destination unreachable, source quench, redirect, time exceeded, parameter problem. */
export function icmpIsError(type: number): boolean {
  return type === 3 || type === 4 || type === 5 || type === 11 || type === 12;
}
