// Test helpers for the wire tests: hex <-> bytes, the shared captures folder, and a tiny classic-pcap
// record reader (both byte orders) so the wire layer can be checked against tshark without src/pcap.
import { readFileSync } from "node:fs";
import path from "node:path";

export function hex(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  const out = new Uint8Array(clean.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(clean.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A path under ../shared (beside the repository root, which is the cwd of the test runner). */
export function sharedPath(...parts: string[]): string {
  return path.resolve(process.cwd(), "../shared", ...parts);
}

export type PcapFile = { linkType: number; frames: Uint8Array[] };

/** Reads every record of a classic pcap file (microsecond or nanosecond magic, either byte order). */
export function readClassicPcap(file: string): PcapFile {
  const data = readFileSync(file);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const magic = view.getUint32(0, true);
  const little = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  if (!little && view.getUint32(0, false) !== 0xa1b2c3d4 && view.getUint32(0, false) !== 0xa1b23c4d) {
    throw new Error(`${file}: not a classic pcap file`);
  }
  const linkType = view.getUint32(20, little);
  const frames: Uint8Array[] = [];
  for (let at = 24; at + 16 <= data.length; ) {
    const caplen = view.getUint32(at + 8, little);
    frames.push(new Uint8Array(data.subarray(at + 16, at + 16 + caplen)));
    at += 16 + caplen;
  }
  return { linkType, frames };
}

/** The external captures that are classic pcap files, with their tshark oracle beside them. */
export const EXTERNAL_CLASSIC_PCAPS = [
  "gopacket-test_dns.pcap",
  "libpcap-ah-ipip-ping.pcap",
  "rustpcap-packet_snaplen_20.pcap",
  "tcpdump-geneve.pcap",
  "tcpdump-vxlan.pcap",
  "tcpdump-vxlan_port_8472.pcap",
  "zeek-communityid-arp.pcap",
  "zeek-communityid-icmp.pcap",
  "zeek-communityid-icmp6.pcap",
  "zeek-communityid-tcp.pcap",
  "zeek-icmp_dot1q.pcap",
  "zeek-tunnels-4in4.pcap",
] as const;

/** One frame of a tshark oracle: each field a list of values, outer header first. */
export type OracleFrame = Record<string, string[] | undefined>;

export function readOracle(capture: string): OracleFrame[] {
  return JSON.parse(readFileSync(sharedPath("pcaps/external", `${capture}.tshark.json`), "utf8")) as OracleFrame[];
}
