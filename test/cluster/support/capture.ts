// A capture tap on a device writing a pcap file (as tcpdump -i eth0 -w would), and reading it back
// through the dissector.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CaptureTap, NetDevice } from "../../../src/net/device.js";
import { openCapture } from "../../../src/pcap/open-capture.js";
import { PcapWriter } from "../../../src/pcap/pcap-writer.js";
import type { SkBuff } from "../../../src/skb/skbuff.js";
import { dissect } from "../../../src/wire/dissect.js";
import type { Layer } from "../../../src/wire/layers.js";

export class PcapTap implements CaptureTap {
  readonly path: string;
  private readonly writer: PcapWriter;

  constructor(private readonly dev: NetDevice, name = "eth0") {
    this.path = join(mkdtempSync(join(tmpdir(), "cnisim-cap-")), `${name}.pcap`);
    this.writer = PcapWriter.toFile(this.path, { linkType: 1 });
    dev.taps.push(this);
  }

  onFrame(_dev: NetDevice, direction: "rx" | "tx", skb: SkBuff, timeNs: number): void {
    if (direction === "tx") this.writer.write({ tsNs: BigInt(timeNs), data: skb.bytes().slice() });
  }

  /** Stops capturing and returns every frame's bytes and layers. */
  async finish(): Promise<{ bytes: Uint8Array; layers: Layer[] }[]> {
    this.dev.taps.splice(this.dev.taps.indexOf(this), 1);
    await this.writer.close();
    const out: { bytes: Uint8Array; layers: Layer[] }[] = [];
    for await (const rec of openCapture(this.path)) out.push({ bytes: rec.data.slice(), layers: dissect(rec.data, 1) });
    return out;
  }
}
