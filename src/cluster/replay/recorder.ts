// Per-interface recording of a replay: a capture tap on every device of every node, pod and external host
// namespace; the first frame a device sees opens its file `<node-or-pod>_<ifname>` through the caller's
// writer factory (the CLI's PcapWriter), with timestamps in simulated nanoseconds.
import type { ClusterRuntime } from "../runtime.js";
import type { CaptureTap, NetDevice } from "../../net/device.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { LinkType } from "../../wire/layers.js";

/** What a recorder writes frames to (PcapWriter has this shape). */
export interface FrameWriter {
  write(packet: { readonly tsNs: bigint; readonly data: Uint8Array }): boolean;
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the writer of one interface: `name` is filesystem-safe, without extension. */
export type FrameWriterFactory = (name: string, linkType: number) => FrameWriter;

export interface RecordedInterface {
  /** File name stem: `<owner>_<ifname>`, characters outside [A-Za-z0-9._-] replaced by "_". */
  readonly name: string;
  /** Node name, pod key (ns/name), ext/NAME or "gateway". */
  readonly owner: string;
  readonly device: string;
  readonly linkType: number;
  frames: number;
}

type Slot = { readonly info: RecordedInterface; writer: FrameWriter | null };

export class InterfaceRecorder implements CaptureTap {
  private readonly slots = new Map<NetDevice, Slot>();
  private readonly devices: NetDevice[] = [];
  private backlog = false;

  constructor(
    rt: ClusterRuntime,
    private readonly open: FrameWriterFactory,
  ) {
    const taken = new Set<string>();
    const add = (owner: string, ns: NetNamespace): void => {
      for (const dev of ns.devicesInOrder()) {
        if (this.slots.has(dev)) continue;
        let name = safeName(`${owner}_${dev.name}`);
        for (let i = 2; taken.has(name); i++) name = safeName(`${owner}_${dev.name}-${i}`);
        taken.add(name);
        const linkType = dev.l2 ? LinkType.ETHERNET : LinkType.RAW;
        this.slots.set(dev, { info: { name, owner, device: dev.name, linkType, frames: 0 }, writer: null });
        this.devices.push(dev);
        dev.taps.push(this);
      }
    };
    for (const [name, node] of rt.nodes) add(name, node.ns);
    for (const pod of rt.pods()) if (!pod.hostNetwork) add(pod.key, pod.ns);
    for (const [name, host] of rt.underlay.hosts) add(`ext/${name}`, host.ns);
    add("gateway", rt.underlay.router.ns);
  }

  onFrame(dev: NetDevice, _direction: "rx" | "tx", skb: SkBuff, timeNs: number): void {
    const slot = this.slots.get(dev);
    if (slot === undefined) return;
    slot.writer ??= this.open(slot.info.name, slot.info.linkType);
    slot.info.frames++;
    if (!slot.writer.write({ tsNs: BigInt(timeNs), data: skb.bytes() })) this.backlog = true;
  }

  /** Waits for writers that asked to (call between packets). */
  async drain(): Promise<void> {
    if (!this.backlog) return;
    this.backlog = false;
    for (const s of this.slots.values()) if (s.writer !== null) await s.writer.drain();
  }

  /** Interfaces that saw traffic, by name. */
  recorded(): RecordedInterface[] {
    return [...this.slots.values()].filter((s) => s.writer !== null).map((s) => s.info).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Removes the taps and closes every file. */
  async close(): Promise<void> {
    for (const dev of this.devices) {
      const i = dev.taps.indexOf(this);
      if (i >= 0) dev.taps.splice(i, 1);
    }
    for (const s of this.slots.values()) if (s.writer !== null) await s.writer.close();
  }
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]/g, "_");
}
