// NAT ranges (nf_nat_range2): which addresses and ports a binding may use, with the kernel's flag
// bits, and the parser for iptables' "--to-destination/--to-source/--to-ports" text.

import { parseIPv4 } from "../../../util/ip.js";
import { err, ok, type Result } from "../../../util/result.js";

export const NatRangeFlag = {
  MAP_IPS: 1,
  PROTO_SPECIFIED: 2,
  PROTO_RANDOM: 4,
  PERSISTENT: 8,
  PROTO_RANDOM_FULLY: 16,
  PROTO_OFFSET: 32,
} as const;
export const NAT_RANGE_PROTO_RANDOM_ALL = NatRangeFlag.PROTO_RANDOM | NatRangeFlag.PROTO_RANDOM_FULLY;

export interface NatRange {
  readonly flags: number;
  /** Host-order IPv4 addresses (valid with MAP_IPS). */
  readonly minAddr: number;
  readonly maxAddr: number;
  /** Ports, or ICMP ids (valid with PROTO_SPECIFIED). */
  readonly minPort: number;
  readonly maxPort: number;
}

export interface NatRangeOptions {
  readonly random?: boolean;
  readonly randomFully?: boolean;
  readonly persistent?: boolean;
}

function optionFlags(o: NatRangeOptions): number {
  return (
    (o.random === true ? NatRangeFlag.PROTO_RANDOM : 0) |
    (o.randomFully === true ? NatRangeFlag.PROTO_RANDOM_FULLY : 0) |
    (o.persistent === true ? NatRangeFlag.PERSISTENT : 0)
  );
}

/** Parses "port" or "lo-hi" (iptables also accepts "lo:hi"). */
export function parsePortRange(text: string): Result<{ lo: number; hi: number }, string> {
  const m = /^(\d{1,5})(?:[-:](\d{1,5}))?$/.exec(text);
  if (m === null) return err(`bad port range "${text}"`);
  const lo = Number(m[1]);
  const hi = m[2] === undefined ? lo : Number(m[2]);
  if (lo > 65535 || hi > 65535 || hi < lo) return err(`bad port range "${text}"`);
  return ok({ lo, hi });
}

/** Parses "a.b.c.d[-e.f.g.h][:port[-port]]" as DNAT/SNAT's --to-destination/--to-source. */
export function parseNatTo(text: string, options: NatRangeOptions = {}): Result<NatRange, string> {
  const colon = text.indexOf(":");
  const addrPart = colon < 0 ? text : text.slice(0, colon);
  let flags = optionFlags(options);
  let minAddr = 0;
  let maxAddr = 0;
  if (addrPart !== "") {
    const dash = addrPart.indexOf("-");
    const lo = parseIPv4(dash < 0 ? addrPart : addrPart.slice(0, dash));
    const hi = dash < 0 ? lo : parseIPv4(addrPart.slice(dash + 1));
    if (lo === null || hi === null || hi < lo) return err(`bad address range "${addrPart}"`);
    minAddr = lo;
    maxAddr = hi;
    flags |= NatRangeFlag.MAP_IPS;
  }
  let minPort = 0;
  let maxPort = 0;
  if (colon >= 0) {
    const ports = parsePortRange(text.slice(colon + 1));
    if (!ports.ok) return ports;
    minPort = ports.value.lo;
    maxPort = ports.value.hi;
    flags |= NatRangeFlag.PROTO_SPECIFIED;
  }
  if ((flags & (NatRangeFlag.MAP_IPS | NatRangeFlag.PROTO_SPECIFIED)) === 0) return err(`empty NAT target "${text}"`);
  return ok({ flags, minAddr, maxAddr, minPort, maxPort });
}

/** MASQUERADE/REDIRECT "--to-ports lo[-hi]" (or none): a range without addresses. */
export function parseToPorts(text: string | undefined, options: NatRangeOptions = {}): Result<NatRange, string> {
  const flags = optionFlags(options);
  if (text === undefined) return ok({ flags, minAddr: 0, maxAddr: 0, minPort: 0, maxPort: 0 });
  const ports = parsePortRange(text);
  if (!ports.ok) return ports;
  return ok({ flags: flags | NatRangeFlag.PROTO_SPECIFIED, minAddr: 0, maxAddr: 0, minPort: ports.value.lo, maxPort: ports.value.hi });
}
