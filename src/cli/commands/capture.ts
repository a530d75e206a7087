// `cnisim capture -f FILES --at POINT --write FILE.pcapng|-`: records emulated interfaces (device
// taps, both directions) into a pcapng file with one named interface per point, while the emulation
// runs in real time (with the scenario's traffic, or real traffic from --iface/--as), or with --fast
// as quickly as it can for --duration of simulated time. `-` writes to stdout: `| tcpdump -r -`.

import type { Command } from "commander";
import type { RealtimeDriver } from "../../engine/realtime.js";
import type { CaptureTap, NetDevice } from "../../net/device.js";
import { CaptureError, PcapngWriter } from "../../pcap/index.js";
import type { SkBuff } from "../../skb/skbuff.js";
import { ExitCode, type CliCommand, type CliContext, type ExitCodeValue } from "../command.js";
import { addLiveOptions, openLiveCluster, parseLiveOptions, resolveTargets, runLiveSession, type LiveCliOptions } from "./attach.js";

const LINKTYPE_ETHERNET = 1;
const LINKTYPE_RAW = 101;

type CaptureCliOptions = LiveCliOptions & { at: string[]; write: string; fast?: boolean };

/** An emulated device to record, named as the pcapng interface. */
export type TapPoint = { readonly label: string; readonly device: NetDevice };

/**
 * Writes every frame the points' devices receive or transmit as an Enhanced Packet Block of the
 * point's interface. Timestamps come from `timestamp(simNs)` (simulated time, or wall clock in real time).
 */
export class TapCapture implements CaptureTap {
  frames = 0;
  /** Frames written while the output was backed up (kept in memory until it drains). */
  backlogged = 0;
  timestamp: (simNs: number) => bigint = (simNs) => BigInt(simNs);
  private readonly ids = new Map<NetDevice, number>();

  constructor(
    private readonly writer: PcapngWriter,
    readonly points: readonly TapPoint[],
  ) {
    for (const p of points) {
      const id = writer.addInterface({
        linkType: p.device.l2 ? LINKTYPE_ETHERNET : LINKTYPE_RAW,
        name: p.label,
        description: `cnisim ${p.device.kind} ${p.device.name} on ${p.device.nodeName || "(no namespace)"}`,
      });
      this.ids.set(p.device, id);
      p.device.taps.push(this);
    }
  }

  onFrame(dev: NetDevice, _direction: "rx" | "tx", skb: SkBuff, timeNs: number): void {
    const interfaceId = this.ids.get(dev);
    if (interfaceId === undefined) return;
    this.frames++;
    if (!this.writer.write({ interfaceId, tsNs: this.timestamp(timeNs), data: skb.bytes() })) this.backlogged++;
  }

  /** Removes the taps and finishes the file. */
  async close(): Promise<void> {
    for (const p of this.points) {
      const i = p.device.taps.indexOf(this);
      if (i >= 0) p.device.taps.splice(i, 1);
    }
    await this.writer.close();
  }
}

export const captureCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    addLiveOptions(program.command("capture").description("record emulated interfaces as pcapng while the emulation runs"))
      .option("--at <point>", "interface to record: ext/NAME, node/NAME[/IFACE] or [NAMESPACE/]POD (repeatable)", (v: string, p: string[]) => [...p, v], [])
      .requiredOption("--write <file>", "pcapng file to write, - for stdout (| tcpdump -r - or | wireshark -k -i -)")
      .option("--duration <duration>", "simulated time to record (default: until Ctrl-C)")
      .option("--fast", "run as fast as possible instead of in real time (needs --duration, no --iface)")
      .addHelpText(
        "after",
        "\nL3 devices (tunl0) are written as raw IP (link type 101); tcpdump reads only one link type per\n" +
          "file, so record them separately or read mixed files with tshark/Wireshark.\n" +
          "Exit codes: 0 recorded; 1 the files did not load, a point or interface is unknown, writing\n" +
          "failed, or (--strict-realtime) the emulation fell behind real time; 2 bad command line.",
      )
      .action(async (options: CaptureCliOptions) => {
        ctx.exitCode = await capture(options, ctx);
      });
  },
};

async function capture(raw: CaptureCliOptions, ctx: CliContext): Promise<ExitCodeValue> {
  const settings = parseLiveOptions(raw);
  if (!settings.ok) return usage(ctx, settings.error);
  if (raw.at.length === 0) return usage(ctx, "give at least one --at POINT to record");
  if (raw.fast === true && (settings.value.durationNs === null || settings.value.pairs.length > 0)) {
    return usage(ctx, "--fast needs --duration and cannot attach real interfaces");
  }
  const cluster = await openLiveCluster(raw, ctx);
  if (typeof cluster === "number") return cluster;
  const points: TapPoint[] = [];
  for (const at of raw.at) {
    const device = cluster.device(at);
    if (!device.ok) return failure(ctx, `--at ${at}: ${device.error}`);
    // One interface recorded twice would write every frame twice, as two interfaces of the file.
    const same = points.find((p) => p.device === device.value);
    if (same !== undefined) return usage(ctx, `--at ${at}: the interface --at ${same.label} already records`);
    points.push({ label: at, device: device.value });
  }
  const targets = resolveTargets(cluster, settings.value);
  if (!targets.ok) return failure(ctx, targets.error);
  const toStdout = raw.write === "-";
  let tap: TapCapture;
  try {
    const writer = toStdout ? PcapngWriter.toStream(process.stdout, {}, { endStream: false }) : PcapngWriter.toFile(raw.write);
    tap = new TapCapture(writer, points);
  } catch (e) {
    return failure(ctx, e instanceof Error ? e.message : String(e));
  }
  const { sim } = cluster;
  let code: ExitCodeValue = ExitCode.OK;
  try {
    if (raw.fast === true) {
      sim.runUntil(sim.now + settings.value.durationNs!);
      await tap.close();
    } else {
      code = await runLiveSession(sim, cluster.world, targets.value, settings.value, ctx, {
        onStart: (driver: RealtimeDriver) => (tap.timestamp = (simNs) => driver.epochNsAt(simNs)),
        onStop: () => tap.close(),
        summaryToStderr: toStdout,
      });
    }
  } catch (e) {
    if (!(e instanceof CaptureError)) throw e;
    return failure(ctx, e.message);
  }
  await ctx.err.line(`cnisim: recorded ${tap.frames} frames on ${points.length} interface(s) to ${toStdout ? "stdout" : raw.write}`);
  return code;
}

async function usage(ctx: CliContext, message: string): Promise<ExitCodeValue> {
  await ctx.err.line(`cnisim: ${message}`);
  return ExitCode.USAGE;
}

async function failure(ctx: CliContext, message: string): Promise<ExitCodeValue> {
  await ctx.err.line(`cnisim: ${message}`);
  return ExitCode.FAILURE;
}
