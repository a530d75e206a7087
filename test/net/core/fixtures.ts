// Test fixtures for the net core: a recording stack port and a frame builder.
import type { NetDevice, StackPort } from "../../../src/net/device.js";
import type { NetWorld } from "../../../src/net/world.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { DeliveryKind } from "../../../src/trace/ledger.js";
import { emitEthernet, EtherType } from "../../../src/wire/ethernet.js";
import { emitIpv4 } from "../../../src/wire/ipv4.js";
import { emitUdp } from "../../../src/wire/udp.js";
import { setL4ChecksumV4 } from "../../../src/wire/checksum.js";

/** A namespace double: records what arrives (with the time) and counts it as delivered. */
export class RecordingStack implements StackPort {
  readonly received: { dev: string; time: number; id: number; length: number; mark: number }[] = [];
  private readonly devices = new Map<number, NetDevice>();
  constructor(
    private readonly world: NetWorld,
    readonly name: string,
    readonly nodeName = name,
  ) {}
  attach(dev: NetDevice): void {
    dev.stack = this;
    this.devices.set(dev.ifindex, dev);
  }
  input(dev: NetDevice, skb: SkBuff): void {
    this.received.push({ dev: dev.name, time: this.world.sim.now, id: skb.id, length: skb.length, mark: skb.mark });
    this.world.ledger.deliver(DeliveryKind.SOCKET);
  }
  deviceByIndex(ifindex: number): NetDevice | undefined {
    return this.devices.get(ifindex);
  }
}

/** An Ethernet/IPv4/UDP frame of `payload` bytes, registered in the ledger. */
export function udpFrame(world: NetWorld, payload: number, src = 0x0a000001, dst = 0x0a000002): SkBuff {
  const length = 14 + 20 + 8 + payload;
  const bytes = new Uint8Array(length);
  emitEthernet({ dst: 0x020000000002, src: 0x020000000001, etherType: EtherType.IPV4 }, bytes, 0);
  emitIpv4(
    {
      dscp: 0, ecn: 0, totalLength: 20 + 8 + payload, identification: 1, dontFragment: true, moreFragments: false,
      fragmentOffset: 0, ttl: 64, protocol: 17, checksum: 0, src, dst, options: new Uint8Array(0),
    },
    bytes,
    14,
  );
  emitUdp({ srcPort: 1000, dstPort: 2000, length: 8 + payload, checksum: 0 }, bytes, 34);
  setL4ChecksumV4(bytes, 34, 8 + payload, 17, src, dst);
  return SkBuff.fromBytes(world.ledger.admit(), bytes);
}
