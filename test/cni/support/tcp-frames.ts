// Ethernet + IPv4 + TCP frames carrying given payloads (for writing pcaps a real dissector decodes),
// with valid checksums and sequence numbers that advance with the payload.
import { writeMac } from "../../../src/util/mac.js";
import { write16, write32 } from "../../../src/wire/bytes.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { PcapWriter } from "../../../src/pcap/pcap-writer.js";

export function tcpFrame(src: number, dst: number, sport: number, dport: number, seq: number, payload: Uint8Array): Uint8Array {
  const f = new Uint8Array(14 + 20 + 20 + payload.length);
  writeMac(f, 0, 0x020000000002);
  writeMac(f, 6, 0x020000000001);
  write16(f, 12, 0x0800);
  f[14] = 0x45;
  write16(f, 16, 40 + payload.length);
  write16(f, 20, 0x4000);
  f[22] = 64;
  f[23] = 6;
  write32(f, 26, src);
  write32(f, 30, dst);
  setIpv4HeaderChecksum(f, 14, 20);
  write16(f, 34, sport);
  write16(f, 36, dport);
  write32(f, 38, seq);
  write32(f, 42, 1);
  f[46] = 0x50;
  f[47] = 0x18; // PSH ACK
  write16(f, 48, 65535);
  f.set(payload, 54);
  setL4ChecksumV4(f, 34, 20 + payload.length, 6, src, dst);
  return f;
}

/** Writes one frame per message (one TCP segment each, consecutive sequence numbers) to a pcap file. */
export async function writeBgpPcap(path: string, messages: readonly Uint8Array[]): Promise<void> {
  const w = PcapWriter.toFile(path, { linkType: 1 });
  let seq = 1000;
  messages.forEach((m, i) => {
    w.write({ tsNs: BigInt(i) * 1000n, data: tcpFrame(0x0a09000b, 0x0a09000c, 40000, 179, seq, m) });
    seq += m.length;
  });
  await w.close();
}
