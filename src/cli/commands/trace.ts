// `cnisim trace -f FILES... --from SRC --to DST[:PORT[/PROTO]] [-o text|json]`: the hop-by-hop path of
// one connection attempt (TCP, UDP datagram and reply, SCTP association, ICMP echo) (devices, hooks, NAT and encapsulation notes), the verdict, and drop explanations.
import type { Command } from "commander";
import { PROBE_TIMEOUT_NS } from "../../cluster/probe/outcome.js";
import { formatTracePath, parseTraceTarget, tracePath, type TracePath } from "../../cluster/trace-path.js";
import { dropJson, hopJson } from "../../cluster/trace-json.js";
import { formatIPv4 } from "../../util/ip.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";
import { buildForCommand } from "./reach.js";

type TraceCliOptions = { file: string[]; namespace: string; from: string; to: string; output: string };

export const traceCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    program
      .command("trace")
      .description("hop-by-hop path of one connection attempt (TCP, UDP, SCTP or ICMP echo), with the verdict and drop explanations")
      .requiredOption("-f, --file <path...>", "cluster and workload files (a cnisim Cluster file, Kubernetes YAML, folders)")
      .option("-n, --namespace <ns>", "namespace for objects that name none", "default")
      .requiredOption("--from <src>", "ns/pod, node/NAME or ext/NAME")
      .requiredOption("--to <dst>", "ns/pod[:PORT], svc/ns/name[:PORT], node/NAME[:PORT] or A.B.C.D[:PORT], then /TCP (default), /UDP, /SCTP or /ICMP; a node or IP without a port is pinged")
      .option("-o, --output <format>", "text or json", "text")
      .addHelpText("after", `\nThe attempt waits at most ${PROBE_TIMEOUT_NS / 1e9} s simulated. Exit codes: 0 traced; 1 the files did not build a cluster; 2 bad command line.`)
      .action(async (options: TraceCliOptions) => {
        ctx.exitCode = await run(options, ctx);
      });
  },
};

async function run(options: TraceCliOptions, ctx: CliContext): Promise<0 | 1 | 2> {
  if (options.output !== "text" && options.output !== "json") {
    await ctx.err.line(`cnisim: -o ${options.output}: expected text or json`);
    return ExitCode.USAGE;
  }
  const rt = await buildForCommand(options.file, options.namespace, ctx);
  if (rt === null) return ExitCode.FAILURE;
  const target = parseTraceTarget(rt, options.to);
  const path = target.ok ? tracePath(rt, options.from, target.value) : target;
  if (!path.ok) {
    await ctx.err.line(`cnisim: ${path.error}`);
    return ExitCode.USAGE;
  }
  if (options.output === "json") await ctx.out.line(JSON.stringify(traceJson(path.value)));
  else for (const line of formatTracePath(path.value)) await ctx.out.line(line);
  return ExitCode.OK;
}

function traceJson(p: TracePath): object {
  return {
    from: p.from,
    to: { name: p.to.label, address: formatIPv4(p.to.addr), port: p.to.port, protocol: p.to.protocol ?? "TCP" },
    verdict: p.outcome,
    notes: p.notes ?? [],
    hops: p.hops.map(hopJson),
    drops: p.drops.map(({ record, reasonName }) => dropJson(record, reasonName)),
  };
}
