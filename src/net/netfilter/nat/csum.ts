// The kernel's incremental checksum update (csum_replace4 / inet_proto_csum_replace2): RFC 1624
// arithmetic done the way include/net/checksum.h does it, so even the 0x0000/0xffff choice for a
// zero sum comes out as the kernel's bytes. Values are host-order numbers of the big-endian fields.

/** 32-bit one's-complement add with end-around carry (csum_add). */
function csumAdd(a: number, b: number): number {
  const r = (a + b) >>> 0;
  return r < b ? (r + 1) >>> 0 : r;
}

/** csum_fold: 32-bit partial sum to the final 16-bit checksum (complemented). */
function csumFold(sum: number): number {
  let s = (sum & 0xffff) + (sum >>> 16);
  s = (s & 0xffff) + (s >>> 16);
  return ~s & 0xffff;
}

/** csum_replace4: the checksum after a covered 32-bit field changes from `from` to `to`. */
export function csumReplace4(check: number, from: number, to: number): number {
  const t = csumAdd(~check >>> 0, ~from >>> 0);
  return csumFold(csumAdd(t, to >>> 0));
}

/** inet_proto_csum_replace2: the same for a 16-bit field. */
export function csumReplace2(check: number, from: number, to: number): number {
  return csumReplace4(check, from & 0xffff, to & 0xffff);
}
