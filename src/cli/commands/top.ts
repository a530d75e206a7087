// `cnisim top node|pod -f FILES [--duration 60s] [-n NS | -A] [-l SELECTOR]`: runs the emulated
// cluster for the given simulated time with metrics-server's scrapes, then prints what `kubectl top`
// prints against it (same columns, rounding and errors).
import type { Command } from "commander";
import { meteredLab, openEmulation, parseLabelSelector, topOutput } from "../../api/index.js";
import { parseGoDuration } from "../../lab/index.js";
import { topHeaderStyleFor } from "../../metrics/index.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";

type TopOptions = {
  file: string[];
  duration: string;
  namespace?: string;
  allNamespaces?: boolean;
  selector?: string;
  headers: boolean;
  kubectlVersion?: string;
};

export const topCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    program
      .command("top")
      .description("print kubectl top's node or pod table after running the emulated cluster for a while")
      .argument("<what>", "node | nodes | no | pod | pods | po")
      .argument("[names...]", "only these nodes or pods")
      .requiredOption("-f, --file <path...>", "cluster and workload files (a cnisim Cluster file, Kubernetes YAML, folders)")
      .option("--duration <d>", "simulated time to run before printing", "60s")
      .option("-n, --namespace <ns>", "pods of this namespace (default: default)")
      .option("-A, --all-namespaces", "pods of every namespace, with a NAMESPACE column")
      .option("-l, --selector <labels>", "only objects with these labels (kubectl syntax)")
      .option("--no-headers", "omit the header line")
      .option("--kubectl-version <v>", "print as this kubectl version does (v1.33+ print CPU(%) / MEMORY(%)); default: the cluster's kubernetesVersion")
      .action(async (what: string, names: string[], options: TopOptions) => {
        ctx.exitCode = await top(what, names, options, ctx);
      });
  },
};

const KINDS: Readonly<Record<string, "node" | "pod">> = { node: "node", nodes: "node", no: "node", pod: "pod", pods: "pod", po: "pod" };

async function lines(ctx: CliContext, out: readonly string[], err: readonly string[]): Promise<void> {
  for (const l of out) await ctx.out.line(l);
  await ctx.out.flush();
  for (const l of err) await ctx.err.line(l);
  await ctx.err.flush();
}

async function top(what: string, names: string[], options: TopOptions, ctx: CliContext): Promise<0 | 1 | 2> {
  const kind = KINDS[what];
  if (kind === undefined) return lines(ctx, [], [`cnisim: top takes node or pod, not "${what}"`]).then(() => ExitCode.USAGE);
  const duration = parseGoDuration(options.duration);
  if (!duration.ok) return lines(ctx, [], [`cnisim: --duration: ${duration.error}`]).then(() => ExitCode.USAGE);
  const selector = parseLabelSelector(options.selector ?? null);
  if (!selector.ok) return lines(ctx, [], [`error: ${selector.error}`]).then(() => ExitCode.USAGE);
  const opened = await openEmulation(options.file);
  if (!opened.ok) return lines(ctx, [], opened.error.map((e) => `cnisim: ${e}`)).then(() => ExitCode.FAILURE);
  const { lab, model, warnings } = opened.value;
  const { metrics, metered } = meteredLab(lab, model);
  lab.advance(duration.value);
  metrics.stop();
  const notes = [
    ...warnings.map((w) => `cnisim: warning: ${w}`),
    ...metered.usageProblems().map((p) => `cnisim: warning: pod ${p.pod}: ${p.error.path}: ${p.error.reason} (idle baseline used)`),
  ];
  const r = topOutput(
    {
      what: kind,
      names,
      namespace: kind === "node" || options.allNamespaces === true ? null : (options.namespace ?? "default"),
      labels: selector.value,
      noHeaders: !options.headers,
      style: topHeaderStyleFor(options.kubectlVersion ?? lab.model.kubernetesVersion),
    },
    { metrics, metered, store: lab.store, ageNs: (ts) => lab.sim.now - lab.wall.nsOf(ts) },
  );
  await lines(ctx, r.stdout, [...notes, ...r.stderr]);
  return r.exitCode === 0 ? ExitCode.OK : ExitCode.FAILURE;
}
