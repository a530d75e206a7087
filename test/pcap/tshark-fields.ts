// Turns a record and its dissected layers into tshark-oracle field lists (field name -> values, outer
// first, as tshark-oracle.py stores them), so that a test can compare cnisim with tshark field by field.
import { formatTimestampNs } from "../../src/pcap/timestamp.js";
import type { CaptureRecord } from "../../src/pcap/types.js";
import type { Layer } from "../../src/wire/layers.js";

export type OracleFrame = Record<string, string[]>;

const hex4 = (n: number): string => `0x${n.toString(16).padStart(4, "0")}`;
const TCP_FLAG_BITS: Record<string, number> = { F: 0x01, S: 0x02, R: 0x04, P: 0x08, A: 0x10, U: 0x20, E: 0x40, C: 0x80 };

/** tshark's checksum status: 1 good, 0 bad; our null ("could not check") matches 2 (unverified) or 3 (absent). */
export const CHECKSUM_UNKNOWN = "2|3";
const status = (ok: boolean | null): string => (ok === null ? CHECKSUM_UNKNOWN : ok ? "1" : "0");

export function tcpFlagBits(letters: string): number {
  let bits = 0;
  for (const letter of letters) bits |= TCP_FLAG_BITS[letter] ?? 0;
  return bits;
}

export function cnisimFields(record: CaptureRecord, layers: readonly Layer[]): OracleFrame {
  const out: OracleFrame = {};
  const add = (field: string, value: string | number): void => {
    (out[field] ??= []).push(String(value));
  };
  add("frame.time_epoch", formatTimestampNs(record.tsNs));
  add("frame.cap_len", record.caplen);
  add("frame.len", record.len);
  for (const l of layers) {
    switch (l.proto) {
      case "eth":
        add("eth.src", l.src);
        add("eth.dst", l.dst);
        add("eth.type", hex4(l.type));
        break;
      case "vlan":
        add("vlan.id", l.id);
        break;
      case "arp":
        add("arp.opcode", l.op);
        add("arp.src.proto_ipv4", l.senderIp);
        add("arp.dst.proto_ipv4", l.targetIp);
        break;
      case "ipv4":
        add("ip.src", l.src);
        add("ip.dst", l.dst);
        add("ip.proto", l.protocol);
        add("ip.ttl", l.ttl);
        add("ip.len", l.len);
        add("ip.id", hex4(l.id));
        add("ip.flags.df", l.flags.includes("DF") ? 1 : 0);
        add("ip.flags.mf", l.flags.includes("MF") ? 1 : 0);
        add("ip.frag_offset", l.fragOffset);
        add("ip.checksum.status", status(l.checksumOk));
        break;
      case "ipv6":
        add("ipv6.src", l.src);
        add("ipv6.dst", l.dst);
        add("ipv6.nxt", l.nextHeader);
        add("ipv6.hlim", l.hopLimit);
        add("ipv6.plen", l.payloadLen);
        break;
      case "icmp":
        add("icmp.type", l.type);
        add("icmp.code", l.code);
        break;
      case "icmpv6":
        add("icmpv6.type", l.type);
        add("icmpv6.code", l.code);
        break;
      case "udp":
        add("udp.srcport", l.srcPort);
        add("udp.dstport", l.dstPort);
        add("udp.length", l.len);
        add("udp.checksum.status", status(l.checksumOk));
        break;
      case "tcp":
        add("tcp.srcport", l.srcPort);
        add("tcp.dstport", l.dstPort);
        add("tcp.seq_raw", l.seq);
        add("tcp.ack_raw", l.ack);
        add("tcp.flags", hex4(tcpFlagBits(l.flags)));
        add("tcp.window_size_value", l.window);
        add("tcp.checksum.status", status(l.checksumOk));
        break;
      case "vxlan":
        add("vxlan.vni", l.vni);
        break;
      case "geneve":
        add("geneve.vni", l.vni);
        break;
      default:
        break;
    }
  }
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

/** Normalises a tshark value for comparison: geneve.vni is printed in hex ("0x00000a"). */
export function normaliseTshark(field: string, value: string): string {
  if (field === "geneve.vni") return String(Number.parseInt(value, 16));
  return value;
}
