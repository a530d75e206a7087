// `cnisim serve -f FILES [--port N] [--address A] [--rate R] [--traffic SPEC]...`: runs the emulated
// cluster (control plane and network, with the given traffic flowing) and serves a read-only
// Kubernetes API (kubectl get/describe/top work against it) plus Prometheus /metrics, with simulated
// time advancing at R x wall-clock time until interrupted.
import type { Command } from "commander";
import {
  ApiServer,
  DEFAULT_ADDRESS,
  emulationBackend,
  formatTrafficSpecError,
  LiveDriver,
  openEmulation,
  parseTrafficSpec,
  TrafficDriver,
  type FlowSpec,
} from "../../api/index.js";
import { parseGoDuration } from "../../lab/index.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";

type ServeOptions = { file: string[]; port: string; address: string; rate: string; warmup: string; traffic: string[] };

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export const serveCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    program
      .command("serve")
      .description("serve the emulated cluster's Kubernetes API (read-only), metrics.k8s.io and /metrics over HTTP")
      .requiredOption("-f, --file <path...>", "cluster and workload files (a cnisim Cluster file, Kubernetes YAML, folders)")
      .option("--port <n>", "TCP port (0 picks a free one)", "8080")
      .option("--address <ip>", "address to bind; anything but loopback exposes the API to the network", DEFAULT_ADDRESS)
      .option("--rate <x>", "simulated seconds per wall-clock second (0 freezes time)", "1.0")
      .option("--warmup <duration>", "simulated time run before serving (metrics need two scrapes)", "30s")
      .option("--traffic <spec>", "keep this traffic flowing (repeatable), e.g. 'web/test->svc/web/web1:80 rate=200/s', 'udp a/x->b/y:9000 rate=5000/s size=1400'", collect, [])
      .addHelpText("after", "\nThen: kubectl --server http://ADDRESS:PORT get nodes   (or top node, describe pod ...)")
      .action(async (options: ServeOptions) => {
        ctx.exitCode = await serve(options, ctx);
      });
  },
};

async function serve(options: ServeOptions, ctx: CliContext): Promise<0 | 1 | 2> {
  const port = Number(options.port);
  const rate = Number(options.rate);
  const warmup = parseGoDuration(options.warmup);
  if (!Number.isInteger(port) || port < 0 || port > 65535) return usage(ctx, `--port: "${options.port}" is not a port number (0-65535)`);
  if (!Number.isFinite(rate) || rate < 0) return usage(ctx, `--rate: "${options.rate}" is not a non-negative number`);
  if (!warmup.ok) return usage(ctx, `--warmup: ${warmup.error}`);
  const specs: FlowSpec[] = [];
  for (const text of options.traffic) {
    const spec = parseTrafficSpec(text);
    if (!spec.ok) return usage(ctx, formatTrafficSpecError(spec.error));
    specs.push(spec.value);
  }
  // Timestamps near the real clock, so kubectl's client-side ages (describe's events) read right.
  const opened = await openEmulation(options.file, { epochMs: (startNs) => Math.floor(Date.now() - (startNs + warmup.value) / 1e6) });
  if (!opened.ok) {
    for (const e of opened.error) await ctx.err.line(`cnisim: ${e}`);
    await ctx.err.flush();
    return ExitCode.FAILURE;
  }
  const em = opened.value;
  const { lab, warnings } = em;
  for (const w of warnings) await ctx.err.line(`cnisim: warning: ${w}`);
  let traffic: TrafficDriver | null = null;
  if (specs.length > 0) {
    if (em.network === null) return usage(ctx, "--traffic needs a network: give a Cluster file (cnisim.io/v1alpha1 Cluster) with -f");
    if (!em.waitForPods()) await ctx.err.line("cnisim: warning: some pods had not started after 60s of simulated time; traffic to them fails");
    const started = TrafficDriver.start(em.network, specs, lab.wall.epochMs);
    if (!started.ok) return usage(ctx, started.error);
    traffic = started.value;
  }
  const backend = emulationBackend(em, traffic === null ? [] : [traffic]);
  em.advance(warmup.value);
  const driver = new LiveDriver((ns) => em.advance(ns), rate);
  let server: ApiServer;
  try {
    server = await ApiServer.listen(backend, { port, address: options.address, beforeRequest: () => driver.sync() });
  } catch (e) {
    await ctx.err.line(`cnisim: cannot listen on ${options.address}:${port}: ${(e as Error).message}`);
    await ctx.err.flush();
    return ExitCode.FAILURE;
  }
  driver.start();
  if (options.address !== DEFAULT_ADDRESS && options.address !== "::1" && options.address !== "localhost") {
    await ctx.err.line(`cnisim: warning: serving on ${options.address}: the API has no authentication and is reachable from the network`);
  }
  await ctx.err.line(`cnisim: serving ${lab.model.name} at http://${server.address}:${server.port} (simulated time x${rate}); stop with Ctrl-C`);
  for (const spec of specs) await ctx.err.line(`cnisim: traffic: ${spec.text}`);
  await ctx.err.line(`cnisim: try: kubectl --server http://${server.address}:${server.port} get nodes`);
  await ctx.err.flush();
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  driver.stop();
  traffic?.stop();
  backend.metrics.stop();
  em.close();
  await server.close();
  return ExitCode.OK;
}

async function usage(ctx: CliContext, message: string): Promise<2> {
  await ctx.err.line(`cnisim: ${message}`);
  await ctx.err.flush();
  return ExitCode.USAGE;
}
