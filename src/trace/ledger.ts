// Packet conservation ledger: every packet that enters the model is counted, and ends
// delivered, dropped (per reason), or is still in flight. in = delivered + dropped + inFlight.

/** Where a delivered packet ended up. */
export const DeliveryKind = {
  SOCKET: 0, // handed to a listening workload or a client waiting for it
  STACK: 1, // consumed by the host stack itself (ARP, ICMP echo answered, TCP RST sent back)
  EXTERNAL: 2, // left the model (an external host's capture point, a live interface)
  SPLIT: 3, // replaced by new packets (fragmentation, flood copies); the copies are counted as entered
} as const;
export type DeliveryKind = (typeof DeliveryKind)[keyof typeof DeliveryKind];
export const DELIVERY_KIND_NAMES = ["socket", "stack", "external", "split"] as const;

export class PacketLedger {
  private nextId = 1;
  entered = 0;
  delivered = 0;
  dropped = 0;
  readonly deliveredByKind = new Float64Array(DELIVERY_KIND_NAMES.length);
  /** Drop counts by reason code. */
  readonly dropsByReason = new Map<number, number>();

  /** Registers a new packet and returns its id. */
  admit(): number {
    this.entered++;
    return this.nextId++;
  }

  deliver(kind: DeliveryKind): void {
    this.delivered++;
    this.deliveredByKind[kind]!++;
  }

  drop(reason: number): void {
    this.dropped++;
    this.dropsByReason.set(reason, (this.dropsByReason.get(reason) ?? 0) + 1);
  }

  get inFlight(): number {
    return this.entered - this.delivered - this.dropped;
  }
}
