// SNMP counters of one namespace, named and ordered as /proc/net/snmp and /proc/net/netstat print
// them (what `netstat -s` reads), so the model can be compared with a real namespace field by field.

export const IP_FIELDS = [
  "InReceives", "InHdrErrors", "InAddrErrors", "ForwDatagrams", "InUnknownProtos", "InDiscards", "InDelivers",
  "OutRequests", "OutDiscards", "OutNoRoutes", "ReasmTimeout", "ReasmReqds", "ReasmOKs", "ReasmFails",
  "FragOKs", "FragFails", "FragCreates", "OutTransmits",
] as const;
export const IP_EXT_FIELDS = [
  "InNoRoutes", "InTruncatedPkts", "InMcastPkts", "OutMcastPkts", "InBcastPkts", "OutBcastPkts", "InOctets",
  "OutOctets", "InCsumErrors", "ReasmOverlaps",
] as const;
export const ICMP_FIELDS = ["InMsgs", "InErrors", "InCsumErrors", "OutMsgs", "OutErrors", "OutRateLimitGlobal", "OutRateLimitHost"] as const;
export const UDP_FIELDS = ["InDatagrams", "NoPorts", "InErrors", "OutDatagrams", "InCsumErrors", "IgnoredMulti"] as const;
export const TCP_FIELDS = ["InSegs", "OutSegs", "InErrs", "OutRsts", "InCsumErrors"] as const;
/** Neighbour table statistics (the per-table counters of /proc/net/stat/arp_cache). */
export const NEIGH_FIELDS = ["allocs", "resFailed", "unresolvedDiscards", "lookups", "hits"] as const;

type Counters<K extends readonly string[]> = { [F in K[number]]: number };

function zeroed<K extends readonly string[]>(fields: K): Counters<K> {
  return Object.fromEntries(fields.map((f) => [f, 0])) as Counters<K>;
}

/** ICMP per-type columns of the Icmp: line, in /proc/net/snmp order: [name suffix, type]. */
const ICMP_TYPE_COLUMNS: readonly (readonly [string, number])[] = [
  ["DestUnreachs", 3], ["TimeExcds", 11], ["ParmProbs", 12], ["SrcQuenchs", 4], ["Redirects", 5], ["Echos", 8],
  ["EchoReps", 0], ["Timestamps", 13], ["TimestampReps", 14], ["AddrMasks", 17], ["AddrMaskReps", 18],
];

export class StackCounters {
  readonly ip = zeroed(IP_FIELDS);
  readonly ipExt = zeroed(IP_EXT_FIELDS);
  readonly icmp = zeroed(ICMP_FIELDS);
  /** ICMP messages received / sent by type (IcmpMsg: InTypeN / OutTypeN). */
  readonly icmpInType = new Float64Array(256);
  readonly icmpOutType = new Float64Array(256);
  readonly udp = zeroed(UDP_FIELDS);
  readonly tcp = zeroed(TCP_FIELDS);
  readonly neigh = zeroed(NEIGH_FIELDS);

  /**
   * The text of /proc/net/snmp followed by the IpExt lines of /proc/net/netstat, for the counters
   * modelled here (others print 0), given the namespace's Forwarding (1 on, 2 off) and DefaultTTL.
   */
  formatSnmp(forwarding: boolean, defaultTtl: number): string {
    const lines: string[] = [];
    const pair = (label: string, names: readonly string[], values: readonly number[]): void => {
      lines.push(`${label}: ${names.join(" ")}`, `${label}: ${values.join(" ")}`);
    };
    pair("Ip", ["Forwarding", "DefaultTTL", ...IP_FIELDS], [forwarding ? 1 : 2, defaultTtl, ...IP_FIELDS.map((f) => this.ip[f])]);
    const icmpNames = ["InMsgs", "InErrors", "InCsumErrors"];
    const icmpValues = [this.icmp.InMsgs, this.icmp.InErrors, this.icmp.InCsumErrors];
    for (const [suffix, type] of ICMP_TYPE_COLUMNS) {
      icmpNames.push(`In${suffix}`);
      icmpValues.push(this.icmpInType[type]!);
    }
    icmpNames.push("OutMsgs", "OutErrors", "OutRateLimitGlobal", "OutRateLimitHost");
    icmpValues.push(this.icmp.OutMsgs, this.icmp.OutErrors, this.icmp.OutRateLimitGlobal, this.icmp.OutRateLimitHost);
    for (const [suffix, type] of ICMP_TYPE_COLUMNS) {
      icmpNames.push(`Out${suffix}`);
      icmpValues.push(this.icmpOutType[type]!);
    }
    pair("Icmp", icmpNames, icmpValues);
    const msgNames: string[] = [];
    const msgValues: number[] = [];
    const addTypes = (prefix: string, counts: Float64Array): void => {
      counts.forEach((count, type) => {
        if (count === 0) return;
        msgNames.push(`${prefix}${type}`);
        msgValues.push(count);
      });
    };
    addTypes("InType", this.icmpInType);
    addTypes("OutType", this.icmpOutType);
    if (msgNames.length > 0) pair("IcmpMsg", msgNames, msgValues);
    const t = this.tcp;
    pair(
      "Tcp",
      ["RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn", "ActiveOpens", "PassiveOpens", "AttemptFails", "EstabResets",
        "CurrEstab", "InSegs", "OutSegs", "RetransSegs", "InErrs", "OutRsts", "InCsumErrors"],
      [1, 200, 120000, -1, 0, 0, 0, 0, 0, t.InSegs, t.OutSegs, 0, t.InErrs, t.OutRsts, t.InCsumErrors],
    );
    const u = this.udp;
    pair(
      "Udp",
      ["InDatagrams", "NoPorts", "InErrors", "OutDatagrams", "RcvbufErrors", "SndbufErrors", "InCsumErrors", "IgnoredMulti", "MemErrors"],
      [u.InDatagrams, u.NoPorts, u.InErrors, u.OutDatagrams, 0, 0, u.InCsumErrors, u.IgnoredMulti, 0],
    );
    const x = this.ipExt;
    pair(
      "IpExt",
      ["InNoRoutes", "InTruncatedPkts", "InMcastPkts", "OutMcastPkts", "InBcastPkts", "OutBcastPkts", "InOctets", "OutOctets",
        "InMcastOctets", "OutMcastOctets", "InBcastOctets", "OutBcastOctets", "InCsumErrors", "InNoECTPkts", "InECT1Pkts",
        "InECT0Pkts", "InCEPkts", "ReasmOverlaps"],
      [x.InNoRoutes, x.InTruncatedPkts, x.InMcastPkts, x.OutMcastPkts, x.InBcastPkts, x.OutBcastPkts, x.InOctets, x.OutOctets,
        0, 0, 0, 0, x.InCsumErrors, 0, 0, 0, 0, x.ReasmOverlaps],
    );
    return lines.join("\n") + "\n";
  }
}
