// REJECT for a service without backends: the packet is turned, in place, into an ICMP destination
// unreachable (port unreachable) from the service address back to the client, quoting the first 64 bytes
// of the original datagram, TTL 64, original TOS, no DF, addresses and MACs swapped, as Cilium's
// tail_no_service_ipv4 does; the program then sends it out of the interface it came in on.
import { readMac, writeMac } from "../../src/util/mac.js";
import { write16, write32 } from "../../src/wire/bytes.js";
import { IPPROTO_ICMP, setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../src/wire/checksum.js";
import { EtherType } from "../../src/wire/ethernet.js";
import { parseFrame, parseIp } from "../../src/wire/headers.js";
import { IcmpType } from "../../src/wire/icmp.js";
import { Xlate, type DatapathCtx } from "../ctx.js";

const SAMPLE_MAX = 64;
const PORT_UNREACHABLE = 3;
const sample = new Uint8Array(SAMPLE_MAX);

/** Rewrites the packet into the ICMP error and updates ctx's tuple and parsed headers. */
export function rejectWithIcmp(ctx: DatapathCtx): void {
  const skb = ctx.skb;
  const hdr = ctx.hdr;
  const l2Len = ctx.l2 ? 14 : 0;
  const l3 = hdr.l3Offset;
  const sampleLen = Math.min(hdr.end - l3, SAMPLE_MAX);
  const client = ctx.saddr;
  const service = ctx.daddr;
  const tos = hdr.tos;
  const clientMac = ctx.l2 ? readMac(skb.data, skb.head + 6) : 0;
  const ourMac = ctx.l2 ? readMac(skb.data, skb.head) : 0;
  sample.set(skb.data.subarray(l3, l3 + sampleLen));

  const total = l2Len + 20 + 8 + sampleLen;
  if (skb.head + total > skb.data.length) skb.push(total - skb.length);
  skb.tail = skb.head + total;
  const b = skb.data;
  const at = skb.head;
  if (ctx.l2) {
    writeMac(b, at, clientMac);
    writeMac(b, at + 6, ourMac);
    write16(b, at + 12, EtherType.IPV4);
  }
  const ip = at + l2Len;
  b[ip] = 0x45;
  b[ip + 1] = tos;
  write16(b, ip + 2, 20 + 8 + sampleLen);
  write32(b, ip + 4, 0); // id 0, no flags, offset 0
  b[ip + 8] = 64;
  b[ip + 9] = IPPROTO_ICMP;
  write32(b, ip + 12, service);
  write32(b, ip + 16, client);
  setIpv4HeaderChecksum(b, ip, 20);
  const icmp = ip + 20;
  b[icmp] = IcmpType.DEST_UNREACHABLE;
  b[icmp + 1] = PORT_UNREACHABLE;
  write16(b, icmp + 2, 0);
  write32(b, icmp + 4, 0);
  b.set(sample.subarray(0, sampleLen), icmp + 8);
  setL4ChecksumV4(b, icmp, 8 + sampleLen, IPPROTO_ICMP, service, client);

  if (ctx.l2) parseFrame(b, skb.head, skb.tail, hdr);
  else parseIp(b, skb.head, skb.tail, hdr);
  ctx.proto = IPPROTO_ICMP;
  ctx.saddr = service;
  ctx.daddr = client;
  ctx.sport = 0;
  ctx.dport = 0;
  ctx.xlate |= Xlate.REJECT;
}
