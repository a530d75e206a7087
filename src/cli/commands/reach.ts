// `cnisim reach -f FILES... [--port 80/TCP ...] [--from SEL] [--to SEL] [-o table|json]`: the
// reachability matrix measured with real connection attempts through the emulated datapath.
import type { Command } from "commander";
import { buildCluster } from "../../cluster/build.js";
import { formatClusterError } from "../../cluster/errors.js";
import type { ClusterRuntime } from "../../cluster/runtime.js";
import { selectEndpoints } from "../../cluster/probe/endpoints.js";
import { PROBE_TIMEOUT_NS } from "../../cluster/probe/outcome.js";
import { parseReachPort, reach, type ReachPort, type ReachResult } from "../../cluster/reach.js";
import { formatDiagnostic } from "../../k8s/diagnostics.js";
import { loadFiles } from "../../k8s/load.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";

type ReachCliOptions = { file: string[]; namespace: string; port: string[]; from: string; to: string; output: string };

export const reachCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    program
      .command("reach")
      .description("reachability matrix: real connection attempts from every source to every destination")
      .requiredOption("-f, --file <path...>", "cluster and workload files (a cnisim Cluster file, Kubernetes YAML, folders)")
      .option("-n, --namespace <ns>", "namespace for objects that name none", "default")
      .option("--port <port/proto...>", "port to probe, e.g. 80/TCP, 53/UDP or 9999/SCTP, or ICMP for an echo (repeatable)", ["80/TCP"])
      .option("--from <sel>", "sources: comma-separated ns/pod, node/NAME, ext/NAME, or pods|nodes|ext (pods: all but kube-system's)", "pods")
      .option("--to <sel>", "destinations: as --from, plus svc/ns/name and svc", "pods")
      .option("-o, --output <format>", "table or json", "table")
      .addHelpText(
        "after",
        `\nA pod listens on its declared TCP containerPorts and on 80 when it runs nginx, echoes datagrams on its\n` +
          `declared UDP containerPorts, and accepts SCTP associations on its declared SCTP containerPorts; other\nports refuse.\n` +
          `Outcomes: connected (TCP handshake, UDP reply, SCTP INIT/INIT ACK/COOKIE ECHO/COOKIE ACK, echo reply),\n` +
          `refused (RST, SCTP ABORT or ICMP unreachable), dropped:<reason code> (a drop record of the\n` +
          `attempt's packets), timeout (no answer within ${PROBE_TIMEOUT_NS / 1e9} s simulated).\n` +
          "Exit codes: 0 done; 1 the files did not build a cluster; 2 bad command line.",
      )
      .action(async (options: ReachCliOptions) => {
        ctx.exitCode = await run(options, ctx);
      });
  },
};

/** Builds the cluster from the files, printing problems; null when it failed. */
export async function buildForCommand(files: readonly string[], namespace: string, ctx: CliContext): Promise<ClusterRuntime | null> {
  const loaded = await loadFiles(files, { namespace });
  for (const w of loaded.warnings) await ctx.err.line(`cnisim: warning: ${formatDiagnostic(w)}`);
  const built = buildCluster(loaded);
  if (!built.ok) {
    await ctx.err.line(`cnisim: ${formatClusterError(built.error)}`);
    return null;
  }
  for (const n of built.value.notices()) await ctx.err.line(`cnisim: notice: ${n}`);
  return built.value;
}

async function run(options: ReachCliOptions, ctx: CliContext): Promise<0 | 1 | 2> {
  if (options.output !== "table" && options.output !== "json") {
    await ctx.err.line(`cnisim: -o ${options.output}: expected table or json`);
    return ExitCode.USAGE;
  }
  const ports: ReachPort[] = [];
  for (const text of options.port) {
    const p = parseReachPort(text);
    if (!p.ok) {
      await ctx.err.line(`cnisim: ${p.error}`);
      return ExitCode.USAGE;
    }
    const twice = ports.find((q) => q.port === p.value.port && q.protocol === p.value.protocol);
    if (twice !== undefined) {
      // The same port twice would probe every pair twice and print its matrix twice.
      await ctx.err.line(`cnisim: --port "${text}": ${p.value.protocol === "ICMP" ? "ICMP" : `${p.value.port}/${p.value.protocol}`} is given twice`);
      return ExitCode.USAGE;
    }
    ports.push(p.value);
  }
  const rt = await buildForCommand(options.file, options.namespace, ctx);
  if (rt === null) return ExitCode.FAILURE;
  const from = selectEndpoints(rt, options.from, "from");
  const to = selectEndpoints(rt, options.to, "to");
  for (const s of [from, to]) {
    if (!s.ok) {
      await ctx.err.line(`cnisim: ${s.error}`);
      return ExitCode.USAGE;
    }
  }
  if (!from.ok || !to.ok) return ExitCode.USAGE;
  const result = reach(rt, from.value, to.value, ports);
  if (options.output === "json") await ctx.out.line(JSON.stringify(result));
  else for (const line of formatReachTable(result)) await ctx.out.line(line);
  return ExitCode.OK;
}

/** One matrix per probed port: rows are sources, columns destinations, cells the outcome. */
export function formatReachTable(r: ReachResult): string[] {
  const lines: string[] = [];
  for (const p of r.probes) {
    if (lines.length > 0) lines.push("");
    lines.push(p.protocol === "ICMP" ? "ICMP echo" : `PORT ${p.port}/${p.protocol}`);
    const head = ["FROM \\ TO", ...p.to];
    const rows = p.from.map((f, i) => [f, ...(p.outcome[i] ?? [])]);
    const widths = head.map((h, c) => Math.max(h.length, ...rows.map((row) => (row[c] ?? "").length)));
    const fmt = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
    lines.push(fmt(head));
    for (const row of rows) lines.push(fmt(row));
  }
  return lines;
}
