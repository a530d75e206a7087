// `cnisim serve -f FILES [--port N] [--address A] [--rate R]`: runs the emulated cluster and serves a
// read-only Kubernetes API (kubectl get/describe/top work against it) plus Prometheus /metrics,
// with simulated time advancing at R x wall-clock time until interrupted.
import type { Command } from "commander";
import { ApiServer, DEFAULT_ADDRESS, labBackend, LiveDriver, openEmulation } from "../../api/index.js";
import { parseGoDuration } from "../../lab/index.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";

type ServeOptions = { file: string[]; port: string; address: string; rate: string; warmup: string };

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
  // Timestamps near the real clock, so kubectl's client-side ages (describe's events) read right.
  const opened = await openEmulation(options.file, { epochMs: Math.floor(Date.now() - warmup.value / 1e6) });
  if (!opened.ok) {
    for (const e of opened.error) await ctx.err.line(`cnisim: ${e}`);
    await ctx.err.flush();
    return ExitCode.FAILURE;
  }
  const { lab, model, warnings } = opened.value;
  for (const w of warnings) await ctx.err.line(`cnisim: warning: ${w}`);
  const backend = labBackend(lab, { model });
  lab.advance(warmup.value);
  const driver = new LiveDriver((ns) => lab.advance(ns), rate);
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
  backend.metrics.stop();
  await server.close();
  return ExitCode.OK;
}

async function usage(ctx: CliContext, message: string): Promise<2> {
  await ctx.err.line(`cnisim: ${message}`);
  await ctx.err.flush();
  return ExitCode.USAGE;
}
