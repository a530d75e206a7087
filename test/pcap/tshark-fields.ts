// Turns a record and its dissected layers into tshark-oracle field lists (field name -> values, outer
// first, as tshark-oracle.py stores them), so that a test can compare cnisim with tshark field by field.
import { formatTimestampNs } from "../../src/pcap/timestamp.js";
import type { CaptureRecord } from "../../src/pcap/types.js";
import type { Layer } from "../../src/wire/layers.js";
import { oracleShape } from "../wire/oracle-shape.js";

export type OracleFrame = Record<string, string[]>;

/** tshark's checksum status: 1 good, 0 bad; our null ("could not check") matches 2 (unverified) or 3 (absent). */
export const CHECKSUM_UNKNOWN = "2|3";

/** The record's frame fields, then every layer's fields as the wire tests map them (test/wire/oracle-shape.ts). */
export function cnisimFields(record: CaptureRecord, layers: readonly Layer[]): OracleFrame {
  const out: OracleFrame = {
    "frame.time_epoch": [formatTimestampNs(record.tsNs)],
    "frame.cap_len": [String(record.caplen)],
    "frame.len": [String(record.len)],
  };
  for (const [field, values] of Object.entries(oracleShape(layers))) if (values !== undefined) out[field] = values;
  return out;
}

/** The fields the comparison covers (the brief's list; tshark-oracle.py extracts all of them). */
export const COMPARED_FIELDS = [
  "frame.time_epoch", "frame.cap_len", "frame.len",
  "eth.src", "eth.dst", "eth.type", "vlan.id", "arp.opcode", "arp.src.proto_ipv4", "arp.dst.proto_ipv4",
  "ip.src", "ip.dst", "ip.proto", "ip.ttl", "ip.len", "ip.id", "ip.flags.df", "ip.flags.mf", "ip.frag_offset",
  "ip.checksum.status", "ipv6.src", "ipv6.dst", "ipv6.nxt", "ipv6.hlim", "ipv6.plen",
  "icmp.type", "icmp.code", "icmpv6.type", "icmpv6.code", "udp.srcport", "udp.dstport", "udp.length",
  "udp.checksum.status", "tcp.srcport", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.flags",
  "tcp.window_size_value", "tcp.checksum.status", "vxlan.vni", "geneve.vni",
] as const;
