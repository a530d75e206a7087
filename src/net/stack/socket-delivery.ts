// A packet on its way to a bound socket handler: what the handler learns about it (SocketInfo) and,
// for SOCKET handlers, the 0-delay event that hands it over, in one object per delivery.

import type { SkBuff } from "../../skb/skbuff.js";
import { DeliveryKind, type PacketLedger } from "../../trace/ledger.js";
import type { NetDevice } from "../device.js";
import type { SocketHandler, SocketInfo } from "./sockets.js";

export class SocketDelivery implements SocketInfo {
  constructor(
    readonly src: number,
    readonly dst: number,
    readonly srcPort: number,
    readonly dstPort: number,
    readonly dev: NetDevice,
    readonly proto: number,
    readonly ipOffset: number,
    readonly handler: SocketHandler,
    readonly skb: SkBuff,
    readonly ledger: PacketLedger,
  ) {}
}

/** The event body of a deferred delivery: the ledger records it, then the handler runs. */
export const runSocketDelivery = (d: SocketDelivery): void => {
  d.ledger.deliver(DeliveryKind.SOCKET);
  d.handler(d.skb, d);
};
