// Traffic probes through the model's stacks: ICMP echo from one namespace to an address (the
// stack answers echo requests itself), and a UDP datagram with a DF bit, collecting what comes back.
import type { NetNamespace } from "../../../src/net/stack/namespace.js";
import type { ClusterRuntime } from "../../../src/cluster/runtime.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { write16, write32 } from "../../../src/wire/bytes.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../../../src/wire/checksum.js";

export interface IcmpSeen {
  readonly type: number;
  readonly code: number;
  readonly from: number;
  /** Next-hop MTU of a fragmentation-needed message. */
  readonly mtu: number;
}

/** IPv4 packet without L2: ICMP echo request (src 0 = the route chooses) or UDP. */
function ipPacket(proto: number, dst: number, payload: number, df: boolean, id: number): Uint8Array {
  const l4 = 8 + payload;
  const p = new Uint8Array(20 + l4);
  p[0] = 0x45;
  write16(p, 2, p.length);
  write16(p, 4, id);
  write16(p, 6, df ? 0x4000 : 0);
  p[8] = 64;
  p[9] = proto;
  write32(p, 16, dst);
  if (proto === 1) {
    p[20] = 8;
    write16(p, 24, id);
    write16(p, 26, 1);
  } else {
    write16(p, 20, 40000 + (id & 0xfff));
    write16(p, 22, 9);
    write16(p, 24, l4);
  }
  for (let i = 0; i < payload; i++) p[28 + i] = i & 0xff;
  return p;
}

/** The kernel fills the source on output; the checksums need it, so pick it the same way first. */
function send(rt: ClusterRuntime, ns: NetNamespace, bytes: Uint8Array): void {
  const src = ns.selectSourceAddress(read32(bytes, 16), null);
  write32(bytes, 12, src);
  setIpv4HeaderChecksum(bytes, 0, 20);
  setL4ChecksumV4(bytes, 20, bytes.length - 20, bytes[9]!, src, read32(bytes, 16));
  ns.outputIp(SkBuff.fromBytes(rt.world.ledger.admit(), bytes));
}

const read32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

/** ICMP messages that came back to `ns` while the cluster ran until idle. */
function collect(rt: ClusterRuntime, ns: NetNamespace, action: () => void): IcmpSeen[] {
  const seen: IcmpSeen[] = [];
  ns.listenIcmp((skb, info) => {
    const b = skb.data;
    const at = skb.head;
    seen.push({ type: b[at]!, code: b[at + 1]!, from: info.src, mtu: (b[at + 6]! << 8) | b[at + 7]! });
  });
  action();
  rt.runUntilIdle();
  ns.listenIcmp(null);
  return seen;
}

/** Pings dst from ns once; true when an echo reply from dst came back. */
export function ping(rt: ClusterRuntime, ns: NetNamespace, dst: number, payload = 56): boolean {
  const seen = collect(rt, ns, () => send(rt, ns, ipPacket(1, dst, payload, true, 0x4242)));
  return seen.some((s) => s.type === 0 && s.from === dst);
}

/** Sends one UDP datagram of `size` bytes (IP total length) with DF to dst:9; returns the ICMP answers. */
export function udpDf(rt: ClusterRuntime, ns: NetNamespace, dst: number, size: number): IcmpSeen[] {
  return collect(rt, ns, () => send(rt, ns, ipPacket(17, dst, size - 28, true, 0x1111)));
}
