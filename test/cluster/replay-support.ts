// Helpers of the replay tests: IPv4 TCP/UDP packets with valid checksums (raw IP), wrapped as Ethernet,
// SLL or SLL2 records, written with our PcapWriter; the seed lab's files; tshark as the oracle.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PcapWriter } from "../../src/pcap/pcap-writer.js";
import { write16, write32 } from "../../src/wire/bytes.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../src/wire/checksum.js";
import { writeMac } from "../../src/util/mac.js";

export const TCP_SYN = 0x02;

export const lab = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);
export const labFiles = (policy?: string): string[] => [lab("cluster.yaml"), lab("workloads.yaml"), ...(policy !== undefined ? [lab(`policies/${policy}`)] : [])];
export const external = (name: string): string => resolve(process.cwd(), "../shared/pcaps/external", name);
export const tmp = (): string => mkdtempSync(join(tmpdir(), "cnisim-replay-"));

/** IPv4 + TCP (20-byte headers, DF, TTL 64), checksums filled in. */
export function tcpPacket(src: number, dst: number, sport: number, dport: number, flags: number, seq = 1000, ident = 1): Uint8Array {
  const p = new Uint8Array(40);
  p[0] = 0x45;
  write16(p, 2, 40);
  write16(p, 4, ident);
  write16(p, 6, 0x4000);
  p[8] = 64;
  p[9] = 6;
  write32(p, 12, src);
  write32(p, 16, dst);
  setIpv4HeaderChecksum(p, 0, 20);
  write16(p, 20, sport);
  write16(p, 22, dport);
  write32(p, 24, seq);
  p[32] = 0x50;
  p[33] = flags;
  write16(p, 34, 64240);
  setL4ChecksumV4(p, 20, 20, 6, src, dst);
  return p;
}

/** IPv4 + UDP with a payload, checksums filled in. */
export function udpPacket(src: number, dst: number, sport: number, dport: number, payload: Uint8Array): Uint8Array {
  const p = new Uint8Array(28 + payload.length);
  p[0] = 0x45;
  write16(p, 2, p.length);
  p[8] = 64;
  p[9] = 17;
  write32(p, 12, src);
  write32(p, 16, dst);
  setIpv4HeaderChecksum(p, 0, 20);
  write16(p, 20, sport);
  write16(p, 22, dport);
  write16(p, 24, 8 + payload.length);
  p.set(payload, 28);
  setL4ChecksumV4(p, 20, 8 + payload.length, 17, src, dst);
  return p;
}

/** An Ethernet frame around an IPv4 packet. */
export function ethernet(dst: number, src: number, ip: Uint8Array): Uint8Array {
  const f = new Uint8Array(14 + ip.length);
  writeMac(f, 0, dst);
  writeMac(f, 6, src);
  write16(f, 12, 0x0800);
  f.set(ip, 14);
  return f;
}

/** A Linux cooked v2 (SLL2) record around an IPv4 packet, as `tcpdump -i any` writes it. */
export function sll2(ip: Uint8Array, ifindex = 2): Uint8Array {
  const f = new Uint8Array(20 + ip.length);
  write16(f, 0, 0x0800);
  write32(f, 4, ifindex);
  write16(f, 8, 1); // ARPHRD_ETHER
  f[10] = 4; // outgoing
  f[11] = 6;
  writeMac(f, 12, 0x020000000001);
  f.set(ip, 20);
  return f;
}

/** Writes packets of one link type, 1 ms apart (or at the given timestamps), to a classic pcap. */
export async function writePcap(path: string, linkType: number, packets: readonly Uint8Array[], tsNs?: readonly bigint[]): Promise<string> {
  const w = PcapWriter.toFile(path, { linkType, resolution: "ns" });
  packets.forEach((data, i) => w.write({ tsNs: tsNs?.[i] ?? 1_700_000_000_000_000_000n + BigInt(i) * 1_000_000n, data }));
  await w.close();
  return path;
}

/** tshark's fields of every frame of a file, one array per frame (the oracle for --out pcaps). */
export function tsharkFields(file: string, fields: readonly string[], filter?: string, prefs: readonly string[] = []): string[][] {
  const args = [...prefs.flatMap((p) => ["-o", p]), "-r", file, "-T", "fields", "-E", "separator=|", ...fields.flatMap((f) => ["-e", f]), ...(filter !== undefined ? ["-Y", filter] : [])];
  const out = execFileSync("tshark", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return out.split("\n").filter((l) => l !== "").map((l) => l.split("|"));
}

export const hasTshark = ((): boolean => {
  try {
    execFileSync("tshark", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
