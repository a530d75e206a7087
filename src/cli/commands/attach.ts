// `cnisim attach -f FILES --iface IFACE --as POINT ...`: real interfaces take the place of emulated
// ones (an external host, a node's interface, a pod) while the emulation runs in real time. Frames
// captured on IFACE (libpcap via `cap`) enter the emulated wire at POINT; what the emulation sends
// there leaves on IFACE. Pods run their containers (nginx, CoreDNS, declared ports) by themselves;
// `--exec 'POD -- CMD'` runs commands in them first, as `kubectl exec` would (e.g. to write nginx's
// page). Also exports the live session that `capture` shares.

import type { Command } from "commander";
import { buildClusterFromFiles, formatClusterError, type ClusterRuntime } from "../../cluster/index.js";
import { RealtimeDriver, type LagEvent } from "../../engine/realtime.js";
import type { Simulator } from "../../engine/simulator.js";
import { parseGoDuration } from "../../lab/index.js";
import type { NetDevice } from "../../net/device.js";
import { ExternalPort } from "../../net/external-port.js";
import type { NetWorld } from "../../net/world.js";
import { formatLiveError, LiveInterface } from "../../pcap/live.js";
import { dropReasonName } from "../../../datapath/reasons.js";
import { err, ok, type Result } from "../../util/result.js";
import { ExitCode, type CliCommand, type CliContext, type ExitCodeValue } from "../command.js";
import { execInPod } from "../../cluster/containers/exec/exec.js";
import { parseExecSpec, type ExecSpec } from "../../cluster/containers/exec/exec-spec.js";

/** Raw flags shared by attach and capture. */
export type LiveCliOptions = {
  file: string[];
  iface: string[];
  as: string[];
  filter?: string;
  rate: string;
  maxLag: string;
  strictRealtime?: boolean;
  duration?: string;
  exec?: string[];
};

export type LiveSettings = {
  readonly pairs: readonly { readonly iface: string; readonly point: string }[];
  readonly filter: string;
  readonly rate: number;
  readonly maxLagNs: number;
  readonly strict: boolean;
  /** Simulated time to run (null: until Ctrl-C). */
  readonly durationNs: number | null;
};

/** An emulated device a real interface replaces. */
export type LiveTarget = { readonly iface: string; readonly point: string; readonly device: NetDevice };

/** Hooks a caller (capture) runs inside the session. */
export type LiveSessionHooks = {
  /** After the interfaces are open, before time starts. */
  readonly onStart?: (driver: RealtimeDriver) => void;
  /** After time stopped, before the summary. */
  readonly onStop?: () => Promise<void>;
  /** Print the summary on stderr instead of stdout (stdout carries a capture). */
  readonly summaryToStderr?: boolean;
};

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** Adds the flags of a live session to a command. */
export function addLiveOptions(command: Command): Command {
  return command
    .requiredOption("-f, --file <path...>", "cluster and workload files (a cnisim Cluster file, Kubernetes YAML, folders)")
    .option("--iface <name>", "real interface to attach (repeatable; pairs with the --as at the same position)", collect, [])
    .option("--as <point>", "what it replaces: ext/NAME, node/NAME[/IFACE] or [NAMESPACE/]POD", collect, [])
    .option("--filter <bpf>", "pcap-filter(7) expression: capture only matching frames")
    .option("--rate <factor>", "simulated seconds per wall-clock second", "1.0")
    .option("--max-lag <duration>", "report when the emulation runs later than this behind real time", "20ms")
    .option("--strict-realtime", "stop with exit code 1 as soon as the emulation falls behind by more than --max-lag")
    .option("--exec <'POD -- CMD'>", "run a command in a pod first, as kubectl exec (repeatable), e.g. \"web/web1 -- sh -c 'echo Hello web1 > /usr/share/nginx/html/index.html'\"", collect, []);
}

export function parseLiveOptions(raw: LiveCliOptions): Result<LiveSettings, string> {
  if (raw.iface.length !== raw.as.length) return err(`every --iface needs an --as (got ${raw.iface.length} --iface, ${raw.as.length} --as)`);
  const pairs = raw.iface.map((iface, i) => ({ iface, point: raw.as[i]! }));
  const seen = new Set<string>();
  for (const p of pairs) {
    if (seen.has(p.iface)) return err(`interface ${p.iface} is attached twice`);
    seen.add(p.iface);
  }
  const rate = Number(raw.rate);
  if (!(rate > 0) || !Number.isFinite(rate)) return err(`--rate must be a positive number, got "${raw.rate}"`);
  const lag = parseGoDuration(raw.maxLag);
  if (!lag.ok) return err(`--max-lag: ${lag.error}`);
  if (lag.value <= 0) return err("--max-lag must be positive");
  let durationNs: number | null = null;
  if (raw.duration !== undefined) {
    const d = parseGoDuration(raw.duration);
    if (!d.ok) return err(`--duration: ${d.error}`);
    durationNs = d.value;
  }
  return ok({ pairs, filter: raw.filter ?? "", rate, maxLagNs: lag.value, strict: raw.strictRealtime === true, durationNs });
}

export const attachCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    addLiveOptions(program.command("attach").description("attach real interfaces to the emulated cluster and run it in real time"))
      .option("--duration <duration>", "stop after this much simulated time (default: run until Ctrl-C)")
      .addHelpText(
        "after",
        "\nNeeds root (or CAP_NET_RAW + CAP_NET_ADMIN), libpcap and the optional `cap` package. Run it\n" +
          "inside a network namespace (ip netns exec NS cnisim attach ...) so that nothing the emulation\n" +
          "sends can reach other networks. Turn off TSO/GSO and checksum offload on the real peer\n" +
          "(ethtool -K DEV tx off) so frames arrive MTU-sized with real checksums. libpcap's warning\n" +
          "'no IPv4 address assigned - This may not actually work' is harmless here.\n" +
          "Exit codes: 0 stopped normally; 1 an interface could not be opened, the files did not load,\n" +
          "or (--strict-realtime) the emulation fell behind real time; 2 bad command line.",
      )
      .action(async (options: LiveCliOptions) => {
        ctx.exitCode = await attach(options, ctx);
      });
  },
};

async function attach(raw: LiveCliOptions, ctx: CliContext): Promise<ExitCodeValue> {
  const settings = parseLiveOptions(raw);
  if (!settings.ok) return fail(ctx, settings.error, ExitCode.USAGE);
  if (settings.value.pairs.length === 0) return fail(ctx, "give at least one --iface IFACE --as POINT", ExitCode.USAGE);
  const opened = await openLiveCluster(raw, ctx);
  if (typeof opened === "number") return opened;
  const cluster = opened;
  const targets = resolveTargets(cluster, settings.value);
  if (!targets.ok) return fail(ctx, targets.error, ExitCode.FAILURE);
  return runLiveSession(cluster.sim, cluster.world, targets.value, settings.value, ctx);
}

/**
 * Builds the cluster for attach and capture: prints its notices, then runs the --exec commands in
 * order. An exit code when the files, an --exec or its command failed.
 */
export async function openLiveCluster(raw: Pick<LiveCliOptions, "file" | "exec">, ctx: CliContext): Promise<LiveCluster | ExitCodeValue> {
  const execs: ExecSpec[] = [];
  for (const text of raw.exec ?? []) {
    const spec = parseExecSpec(text);
    if (!spec.ok) return fail(ctx, `--exec ${JSON.stringify(text)}: ${spec.error}`, ExitCode.USAGE);
    execs.push(spec.value);
  }
  const built = await buildClusterFromFiles(raw.file);
  if (!built.ok) return fail(ctx, formatClusterError(built.error), ExitCode.FAILURE);
  for (const n of built.value.notices()) await ctx.err.line(`cnisim: ${n}`);
  const ran = await runExecs(built.value, execs, ctx);
  if (ran !== ExitCode.OK) return ran;
  return liveClusterOf(built.value);
}

/** Runs the --exec commands in order, printing their output as kubectl exec does; a failed one stops attach or capture. */
async function runExecs(cluster: ClusterRuntime, execs: readonly ExecSpec[], ctx: CliContext): Promise<ExitCodeValue> {
  for (const e of execs) {
    if (cluster.pod(e.pod) === undefined) return fail(ctx, `--exec: no pod ${JSON.stringify(e.pod)} with a network (have: ${cluster.pods().map((p) => p.key).join(", ")})`, ExitCode.FAILURE);
    const out = execInPod(cluster, e.pod, e.container, e.argv);
    for (const l of out.stdout) await ctx.err.line(l);
    for (const l of out.stderr) await ctx.err.line(l);
    if (out.exitCode !== 0) return fail(ctx, `--exec ${e.pod}: command terminated with exit code ${out.exitCode}`, ExitCode.FAILURE);
  }
  return ExitCode.OK;
}

/** Looks up every --as point in the cluster. */
export function resolveTargets(cluster: LiveCluster, settings: LiveSettings): Result<LiveTarget[], string> {
  const targets: LiveTarget[] = [];
  for (const { iface, point } of settings.pairs) {
    const device = cluster.attachPoint(point);
    if (!device.ok) return err(`--as ${point}: ${device.error}`);
    if (targets.some((t) => t.device === device.value)) return err(`--as ${point}: that point is already attached`);
    targets.push({ iface, point, device: device.value });
  }
  return ok(targets);
}

async function fail(ctx: CliContext, message: string, code: ExitCodeValue): Promise<ExitCodeValue> {
  await ctx.err.line(`cnisim: ${message}`);
  return code;
}

type Attached = { readonly target: LiveTarget; readonly live: LiveInterface; readonly port: ExternalPort };

/**
 * Opens every target's real interface, bridges it onto the emulated device, and runs the emulation
 * in real time until Ctrl-C/SIGTERM, the duration, or (strict) falling behind. Prints warnings when
 * the lag passes the bound, a status line on a terminal, and a summary.
 */
export async function runLiveSession(
  sim: Simulator,
  world: NetWorld,
  targets: readonly LiveTarget[],
  settings: LiveSettings,
  ctx: CliContext,
  hooks: LiveSessionHooks = {},
): Promise<ExitCodeValue> {
  let stopSession: (why: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => (stopSession = resolve));
  let failure: string | null = null;
  const warn = (text: string): void => {
    clearStatus();
    void ctx.err.line(`cnisim: ${text}`).then(() => ctx.err.flush());
  };
  const driver = new RealtimeDriver(sim, {
    rate: settings.rate,
    maxLagNs: settings.maxLagNs,
    onLag: (e) => {
      warn(lagText(e));
      if (e.kind === "behind" && settings.strict) {
        failure = "the emulation fell behind real time (--strict-realtime)";
        stopSession("lag");
      }
    },
    onError: (e) => {
      failure = `internal error in the emulation: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
      stopSession("error");
    },
  });
  const attached: Attached[] = [];
  for (const target of targets) {
    const live = LiveInterface.open(target.iface, { filter: settings.filter });
    if (!live.ok) {
      for (const a of attached) a.live.close();
      return fail(ctx, formatLiveError(live.error), ExitCode.FAILURE);
    }
    const iface = live.value;
    let warned = false;
    // The real interface refusing a frame is a drop (LINK_DOWN, with the reason) in the ledger; say so once at once.
    const sink = {
      send: (frame: Uint8Array): boolean => {
        const sent = iface.send(frame);
        if (!sent && !warned) {
          warned = true;
          warn(`${target.iface} refused a ${frame.length}-byte frame the emulation sent at ${target.point}: ${iface.lastSendError || "send failed"} (counted as a LINK_DOWN drop; later refusals are only counted)`);
        }
        return sent;
      },
      get lastSendError(): string {
        return iface.lastSendError;
      },
    };
    const port = ExternalPort.bridge(target.device, sink, driver, `${target.iface}@${target.point}`);
    live.value.onFrame((data, length, truncated) => port.inject(data, length, truncated));
    attached.push({ target, live: live.value, port });
  }
  hooks.onStart?.(driver);
  for (const a of attached) await ctx.err.line(`cnisim: attached ${a.target.iface} as ${a.target.point} (filter: ${a.live.filter})`);
  const until = settings.durationNs === null ? "press Ctrl-C to stop" : `for ${settings.durationNs / 1e9} s of simulated time`;
  await ctx.err.line(`cnisim: running in real time (rate ${settings.rate}, lag bound ${settings.maxLagNs / 1e6} ms); ${until}`);
  await ctx.err.flush();
  const onSignal = (): void => stopSession("signal");
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const startNs = sim.now;
  if (settings.durationNs !== null) {
    sim.scheduleAt(startNs + settings.durationNs, () => {
      driver.stop();
      stopSession("duration");
    });
  }
  const statusTimer = process.stderr.isTTY ? setInterval(() => printStatus(driver, attached), 500) : null;
  driver.start();
  await stopped;
  driver.stop();
  if (statusTimer !== null) clearInterval(statusTimer);
  clearStatus();
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  for (const a of attached) a.live.close();
  await hooks.onStop?.();
  const summaryOut = hooks.summaryToStderr === true ? ctx.err : ctx.out;
  for (const line of summaryLines(sim, world, driver, attached, startNs)) await summaryOut.line(line);
  for (const line of refusalLines(attached)) await ctx.err.line(`cnisim: ${line}`);
  if (failure !== null) {
    await ctx.err.line(`cnisim: ${failure}`);
    return ExitCode.FAILURE;
  }
  return ExitCode.OK;
}

/** Why frames were refused at the real interfaces, in words (nothing when none were). */
function refusalLines(attached: readonly Attached[]): string[] {
  const lines: string[] = [];
  for (const a of attached) {
    const p = a.port.live;
    if (p.sendFailures > 0) {
      lines.push(`${a.target.iface} refused ${p.sendFailures} frame(s) the emulation sent (last: ${a.live.lastSendError || "send failed"}); they are LINK_DOWN drops at ${a.target.iface}@${a.target.point}. Check that ${a.target.iface} is up and its MTU is at least ${a.target.device.mtu}.`);
    }
    if (p.refused > 0) {
      lines.push(`${p.refused} frame(s) captured on ${a.target.iface} were refused (truncated, shorter than an Ethernet header, or beyond the MTU ${a.target.device.mtu}): turn off offloads on the peer (ethtool -K DEV tso off gso off gro off tx off).`);
    }
  }
  return lines;
}

function lagText(e: LagEvent): string {
  const at = `at simulated ${(e.simNs / 1e9).toFixed(3)} s`;
  if (e.kind === "behind") {
    return `warning: the emulation is ${ms(e.lagNs)} behind real time (bound ${ms(e.boundNs)}) ${at}: real peers now see extra delay the emulated network does not have`;
  }
  return `caught up with real time ${at} (worst lag ${ms(e.worstNs)})`;
}

const ms = (ns: number): string => `${(ns / 1e6).toFixed(1)} ms`;

let statusShown = false;

function printStatus(driver: RealtimeDriver, attached: readonly Attached[]): void {
  let rx = 0;
  let tx = 0;
  for (const a of attached) {
    rx += a.port.live.injected;
    tx += a.port.live.emitted;
  }
  const s = driver.stats;
  const line = `sim ${(driver.sim.now / 1e9).toFixed(3)} s  lag ${ms(s.lastLagNs)} (max ${ms(s.maxLagNs)})  in ${rx}  out ${tx}${driver.isBehind ? "  BEHIND" : ""}`;
  process.stderr.write(`\r\x1b[K${line}`);
  statusShown = true;
}

function clearStatus(): void {
  if (!statusShown) return;
  process.stderr.write("\r\x1b[K");
  statusShown = false;
}

function summaryLines(sim: Simulator, world: NetWorld, driver: RealtimeDriver, attached: readonly Attached[], startNs: number): string[] {
  const lines: string[] = [];
  for (const a of attached) {
    const p = a.port.live;
    const l = a.live.stats;
    lines.push(
      `${a.target.iface} as ${a.target.point}: in ${p.injected} frames (${p.injectedBytes} bytes), out ${p.emitted} frames (${p.emittedBytes} bytes)` +
        `, refused ${p.refused}, send failures ${p.sendFailures}, truncated ${l.truncated}`,
    );
  }
  const s = driver.stats;
  lines.push(
    `real time: ${((sim.now - startNs) / 1e9).toFixed(3)} s simulated, ${s.events} events, max lag ${ms(s.maxLagNs)}` +
      `, ${s.episodes} time(s) past the ${ms(driver.boundNs)} bound`,
  );
  const ledger = world.ledger;
  const drops = [...ledger.dropsByReason].map(([code, n]) => `${dropReasonName(code)} ${n}`).join(", ");
  lines.push(`packets: ${ledger.entered} entered, ${ledger.delivered} delivered, ${ledger.dropped} dropped${drops === "" ? "" : ` (${drops})`}, ${ledger.inFlight} in flight`);
  return lines;
}

// ---- the cluster a live session runs --------------------------------------------------------

/** What attach and capture need from a built cluster. */
export interface LiveCluster {
  readonly sim: Simulator;
  readonly world: NetWorld;
  /** The emulated device at ext/NAME, node/NAME[/IFACE] or [NAMESPACE/]POD. */
  device(point: string): Result<NetDevice, string>;
  /** The device a real interface can replace: an Ethernet device at the point. */
  attachPoint(point: string): Result<NetDevice, string>;
}

/** Loads the files and builds the emulated cluster (run until its control plane converged). */
/** Point lookups over a built cluster. */
export function liveClusterOf(cluster: ClusterRuntime): LiveCluster {
  const device = (point: string): Result<NetDevice, string> => {
    const parts = point.split("/");
    if (parts[0] === "ext") {
      const host = parts.length === 2 ? cluster.externalHost(parts[1]!) : undefined;
      return host === undefined ? err(`no external host ${JSON.stringify(parts.slice(1).join("/"))} (have: ${[...cluster.underlay.hosts.keys()].join(", ") || "none"})`) : ok(host.eth0);
    }
    if (parts[0] === "node") {
      const node = parts.length >= 2 && parts.length <= 3 ? cluster.node(parts[1]!) : undefined;
      if (node === undefined) return err(`no node ${JSON.stringify(parts[1] ?? "")} (have: ${[...cluster.nodes.keys()].join(", ")})`);
      if (parts.length === 2) return ok(node.eth0);
      const dev = node.ns.deviceByName(parts[2]!);
      return dev === undefined ? err(`node ${node.name} has no interface ${parts[2]} (have: ${[...node.ns.devicesInOrder()].map((d) => d.name).join(", ")})`) : ok(dev);
    }
    const key = parts[0] === "pod" ? parts.slice(1).join("/") : point;
    const pod = cluster.pod(key.includes("/") ? key : `default/${key}`);
    if (pod === undefined) return err(`no pod ${JSON.stringify(key)} (points are ext/NAME, node/NAME[/IFACE] or [NAMESPACE/]POD)`);
    if (pod.hostNetwork) return err(`pod ${pod.key} uses the host network: attach at node/${pod.node} instead`);
    return ok(pod.iface);
  };
  return {
    sim: cluster.sim,
    world: cluster.world,
    device,
    attachPoint(point) {
      const dev = device(point);
      if (dev.ok && !dev.value.l2) return err(`${dev.value.name} is an L3 device (no Ethernet frames); attach an Ethernet interface`);
      return dev;
    },
  };
}
