// What a TUNNEL handler (VXLAN's socket) or an IP protocol handler (IPIP) learns about a packet, in
// objects reused from one delivery to the next: these handlers run synchronously and read their
// SocketInfo during the call only, so a delivery needs no object of its own (a SOCKET delivery does:
// it waits for its event). One object per nesting depth, as a handler may hand an inner packet on to
// another tunnel in the same namespace before it returns.

import type { SkBuff } from "../../skb/skbuff.js";
import { read32 } from "../../wire/bytes.js";
import type { NetDevice } from "../device.js";
import type { SocketInfo } from "./sockets.js";

/** SocketInfo of one tunnel delivery in progress; the fields are rewritten by the next at the same depth. */
export class TunnelInfo implements SocketInfo {
  src = 0;
  dst = 0;
  srcPort = 0;
  dstPort = 0;
  proto = 0;
  ipOffset = 0;

  constructor(public dev: NetDevice) {}
}

/** The reusable infos of one namespace's tunnel deliveries, by nesting depth. */
export class TunnelInfos {
  private readonly byDepth: TunnelInfo[] = [];
  private depth = 0;

  /** The info for a delivery of the IPv4 packet at skb.head starting now (finish it with leave()). */
  enter(skb: SkBuff, dev: NetDevice, srcPort: number, dstPort: number): TunnelInfo {
    let info = this.byDepth[this.depth];
    if (info === undefined) this.byDepth.push((info = new TunnelInfo(dev)));
    else info.dev = dev;
    this.depth++;
    const b = skb.data;
    const ip = skb.head;
    info.src = read32(b, ip + 12);
    info.dst = read32(b, ip + 16);
    info.srcPort = srcPort;
    info.dstPort = dstPort;
    info.proto = b[ip + 9]!;
    info.ipOffset = ip;
    return info;
  }

  leave(): void {
    this.depth--;
  }
}
