// ExternalPort: where the emulated network meets a real interface in live mode (issue 9). What the
// emulated side transmits on it goes to a FrameSink (a real interface, via libpcap); frames captured
// on the real interface are copied into packets and received at the simulated time they arrived
// (through an InputScheduler: the real-time driver). Either a device of its own (in a namespace or
// enslaved to a bridge), or bridged onto an existing emulated device the way ns-3's TapBridge is:
// the real host then takes that device's place on its wire.

import { DropReason } from "../../datapath/reasons.js";
import { SkBuff } from "../skb/skbuff.js";
import { DeliveryKind } from "../trace/ledger.js";
import { DeviceKind, NetDevice, type MasterPort, type StackPort } from "./device.js";
import { NetNamespace } from "./stack/namespace.js";
import type { NetWorld } from "./world.js";

/** Where frames leaving the model go (a real interface). False when the frame could not be sent. */
export interface FrameSink {
  send(frame: Uint8Array): boolean;
  /** Why the last send failed, for the drop record. */
  readonly lastSendError?: string;
}

/** Puts external input into simulated time: the real-time driver's inject, or a plain 0-delay event in tests. */
export interface InputScheduler {
  inject<A>(fn: (arg: A) => void, arg: A): number;
}

/** An Ethernet header and one VLAN tag beyond the MTU, as a NIC accepts. */
const L2_ALLOWANCE = 14 + 4;
const ETH_HEADER = 14;

export interface ExternalPortStats {
  /** Frames taken from the real interface into the model. */
  injected: number;
  injectedBytes: number;
  /** Captured frames refused on the way in (runt, truncated, beyond the MTU). */
  refused: number;
  /** Frames the model handed to the real interface. */
  emitted: number;
  emittedBytes: number;
  /** Frames the real interface would not take. */
  sendFailures: number;
}

export class ExternalPort extends NetDevice implements MasterPort {
  readonly kind = DeviceKind.ETHERNET;
  readonly live: ExternalPortStats = { injected: 0, injectedBytes: 0, refused: 0, emitted: 0, emittedBytes: 0, sendFailures: 0 };
  /** The emulated device this port stands in for the stack of (bridge mode), or null. */
  private bridgedDevice: NetDevice | null = null;
  private readonly arrive = (skb: SkBuff): void => this.receive(skb);

  constructor(
    world: NetWorld,
    name: string,
    mac: number,
    mtu: number,
    private readonly sink: FrameSink,
    private readonly input: InputScheduler,
  ) {
    super(world, name, mac, mtu);
  }

  /**
   * Bridge mode: the real interface replaces dev's host side. Frames reaching dev from its wire
   * (link, veth peer) leave on the real interface; frames captured there are sent onto dev's wire.
   * dev is taken out of its namespace, so the emulated host no longer speaks on it.
   */
  static bridge(dev: NetDevice, sink: FrameSink, input: InputScheduler, name = `ext:${dev.name}`): ExternalPort {
    const port = new ExternalPort(dev.world, name, dev.mac, dev.mtu, sink, input);
    port.stack = new BridgedSide(dev, dev.nodeName);
    port.bridgedDevice = dev;
    if (dev.stack instanceof NetNamespace) dev.stack.removeDevice(dev);
    dev.master = port;
    return port;
  }

  /** The emulated device this port replaces the host side of (bridge mode), or null. */
  get bridged(): NetDevice | null {
    return this.bridgedDevice;
  }

  /**
   * A frame captured on the real interface: data[0, length) is copied now (the capture buffer is
   * reused) and received at the simulated time the input scheduler assigns.
   */
  inject(data: Uint8Array, length: number, truncated = false): void {
    const refusal = truncated ? "truncated by the capture" : length < ETH_HEADER ? "shorter than an Ethernet header" : length > this.mtu + L2_ALLOWANCE ? "beyond the MTU" : null;
    const skb = SkBuff.fromBytes(this.world.ledger.admit(), data.subarray(0, length));
    if (refusal !== null) {
      this.live.refused++;
      this.stats.rxDropped++;
      const reason = refusal === "beyond the MTU" ? DropReason.MTU_EXCEEDED : DropReason.INVALID_PACKET;
      this.world.drop(skb, this.site("live-rx"), reason, "net/external-port:refused", true, {
        explanation: `${length}-byte frame from the real interface ${refusal} (MTU ${this.mtu}; turn off TSO/GRO and checksum offload on the peer)`,
      });
      return;
    }
    this.live.injected++;
    this.live.injectedBytes += length;
    this.input.inject(this.arrive, skb);
  }

  /** Bridge mode: a frame arrived at the bridged device from its wire. */
  handleFrame(_port: NetDevice, skb: SkBuff): void {
    this.transmit(skb);
  }

  protected xmit(skb: SkBuff): void {
    if (this.sink.send(skb.bytes())) {
      this.live.emitted++;
      this.live.emittedBytes += skb.length;
      this.world.ledger.deliver(DeliveryKind.EXTERNAL);
      return;
    }
    this.live.sendFailures++;
    this.stats.txDropped++;
    this.world.drop(skb, this.site("live-tx"), DropReason.LINK_DOWN, "net/external-port:send-failed", true, {
      explanation: `the real interface refused the frame: ${this.sink.lastSendError ?? "send failed"}`,
    });
  }
}

/** Bridge mode's "stack" of the port: what comes in from the real side goes out on the bridged device's wire. */
class BridgedSide implements StackPort {
  readonly name: string;

  constructor(
    private readonly dev: NetDevice,
    readonly nodeName: string,
  ) {
    this.name = `bridge to ${dev.name}`;
  }

  input(_dev: NetDevice, skb: SkBuff): void {
    this.dev.transmit(skb);
  }

  deviceByIndex(ifindex: number): NetDevice | undefined {
    return ifindex === this.dev.ifindex ? this.dev : undefined;
  }
}
