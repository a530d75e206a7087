// Turns dissect's layers into the shape of a tshark oracle frame (field -> list of values, outer first),
// so a test can compare the two field by field. Checksum validity maps to tshark's status numbers.
import type { Layer } from "../../src/wire/layers.js";
import type { OracleFrame } from "./fixtures.js";

const hex4 = (n: number): string => `0x${n.toString(16).padStart(4, "0")}`;

/** tshark: 1 good, 0 bad; 2 unverified or 3 not present both mean "could not say" (our null). */
function status(ok: boolean | null): string {
  return ok === null ? "2|3" : ok ? "1" : "0";
}

/** The tshark fields this comparison covers (those tshark-oracle.py extracts). */
export const COMPARED_FIELDS = [
  "eth.src", "eth.dst", "eth.type", "vlan.id", "vlan.etype", "arp.opcode", "arp.src.proto_ipv4", "arp.dst.proto_ipv4",
  "ip.src", "ip.dst", "ip.proto", "ip.ttl", "ip.len", "ip.id", "ip.flags.df", "ip.flags.mf", "ip.frag_offset",
  "ip.checksum.status", "ipv6.src", "ipv6.dst", "ipv6.nxt", "ipv6.hlim", "ipv6.plen", "icmp.type", "icmp.code",
  "icmpv6.type", "icmpv6.code", "udp.srcport", "udp.dstport", "udp.length", "udp.checksum.status", "tcp.srcport",
  "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.flags", "tcp.window_size_value", "tcp.checksum.status",
  "vxlan.vni", "geneve.vni",
] as const;

const TCP_BITS: Record<string, number> = { F: 0x01, S: 0x02, R: 0x04, P: 0x08, A: 0x10, U: 0x20, E: 0x40, C: 0x80 };

export function oracleShape(layers: readonly Layer[]): OracleFrame {
  const out: Record<string, string[]> = {};
  const add = (field: string, value: string | number): void => {
    (out[field] ??= []).push(String(value));
  };
  let ethType = 0;
  for (const l of layers) {
    switch (l.proto) {
      case "eth":
        add("eth.src", l.src);
        add("eth.dst", l.dst);
        add("eth.type", hex4(l.type));
        ethType = l.type;
        break;
      case "vlan":
        if (ethType === 0x8100) {
          add("vlan.id", l.id);
          add("vlan.etype", hex4(l.type));
        }
        ethType = l.type;
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
        add("tcp.flags", hex4([...l.flags].reduce((bits, c) => bits | (TCP_BITS[c] ?? 0), 0)));
        add("tcp.window_size_value", l.window);
        add("tcp.checksum.status", status(l.checksumOk));
        break;
      case "vxlan":
        add("vxlan.vni", l.vni);
        break;
      case "geneve":
        add("geneve.vni", `0x${l.vni.toString(16).padStart(6, "0")}`);
        break;
      default:
        break;
    }
  }
  return out;
}

/** Field-by-field differences between ours and tshark's ("2|3" on our side matches either). */
export function oracleDiff(ours: OracleFrame, theirs: OracleFrame, fields: readonly string[] = COMPARED_FIELDS): string[] {
  const diffs: string[] = [];
  for (const field of fields) {
    const a = ours[field] ?? [];
    const b = theirs[field] ?? [];
    const same = a.length === b.length && a.every((v, i) => v === b[i] || (v === "2|3" && (b[i] === "2" || b[i] === "3")));
    if (!same) diffs.push(`${field}: ours ${JSON.stringify(a)} tshark ${JSON.stringify(b)}`);
  }
  return diffs;
}
