// `cnisim top node|pod -f FILES [--duration 60s] [-n NS | -A] [-l SELECTOR]`: runs the emulated
// cluster for the given simulated time with metrics-server's scrapes, then prints what `kubectl top`
// prints against it (same columns, rounding and errors).
import type { Command } from "commander";
import { openEmulation, parseLabelSelector } from "../../api/index.js";
import { parseGoDuration } from "../../lab/index.js";
import { formatGoDuration, formatTopTable, MetricsServer, StoreMeteredCluster, topHeaderStyleFor, topNodeRows, topPodRows } from "../../metrics/index.js";
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
      .requiredOption("-f, --file <path...>", "cluster and workload files (a cnisim Cluster file, Kubernetes YAML, folders)")
      .option("--duration <d>", "simulated time to run before printing", "60s")
      .option("-n, --namespace <ns>", "pods of this namespace (default: default)")
      .option("-A, --all-namespaces", "pods of every namespace, with a NAMESPACE column")
      .option("-l, --selector <labels>", "only objects with these labels (kubectl syntax)")
      .option("--no-headers", "omit the header line")
      .option("--kubectl-version <v>", "print as this kubectl version does (v1.33+ print CPU(%) / MEMORY(%)); default: the cluster's kubernetesVersion")
      .action(async (what: string, options: TopOptions) => {
        ctx.exitCode = await top(what, options, ctx);
      });
  },
};

const NODE_WORDS = new Set(["node", "nodes", "no"]);
/** kubectl's metricsCreationDelay. */
const METRICS_CREATION_DELAY_NS = 120e9;
const POD_WORDS = new Set(["pod", "pods", "po"]);

async function fail<C extends 0 | 1 | 2>(ctx: CliContext, lines: readonly string[], code: C): Promise<C> {
  for (const l of lines) await ctx.err.line(l);
  await ctx.err.flush();
  return code;
}

async function top(what: string, options: TopOptions, ctx: CliContext): Promise<0 | 1 | 2> {
  if (!NODE_WORDS.has(what) && !POD_WORDS.has(what)) return fail(ctx, [`cnisim: top takes node or pod, not "${what}"`], ExitCode.USAGE);
  const duration = parseGoDuration(options.duration);
  if (!duration.ok) return fail(ctx, [`cnisim: --duration: ${duration.error}`], ExitCode.USAGE);
  const selector = parseLabelSelector(options.selector ?? null);
  if (!selector.ok) return fail(ctx, [`error: ${selector.error}`], ExitCode.USAGE);
  const opened = await openEmulation(options.file);
  if (!opened.ok) return fail(ctx, opened.error.map((e) => `cnisim: ${e}`), ExitCode.FAILURE);
  const { lab, model, warnings } = opened.value;
  for (const w of warnings) await ctx.err.line(`cnisim: warning: ${w}`);
  const metered = new StoreMeteredCluster(lab.store, { epochMs: lab.wall.epochMs });
  const metrics = new MetricsServer(metered, model);
  metrics.start(lab.sim);
  lab.advance(duration.value);
  metrics.stop();
  for (const p of metered.usageProblems()) await ctx.err.line(`cnisim: warning: pod ${p.pod}: ${p.error.path}: ${p.error.reason} (idle baseline used)`);
  const noHeaders = !options.headers;
  let rows: string[][];
  if (NODE_WORDS.has(what)) {
    const nodes = metered.nodes().filter((n) => selector.value(n.labels));
    const usage = metrics.nodes().filter((u) => selector.value(u.labels));
    const style = topHeaderStyleFor(options.kubectlVersion ?? lab.model.kubernetesVersion);
    rows = topNodeRows(usage, nodes.map((n) => ({ name: n.name, ...n.allocatable })), style, noHeaders);
    if (rows.length === 0) return fail(ctx, ["error: metrics not available yet"], ExitCode.FAILURE);
  } else {
    const namespace = options.allNamespaces === true ? null : (options.namespace ?? "default");
    const usage = metrics.pods().filter((u) => (namespace === null || u.namespace === namespace) && selector.value(u.labels));
    rows = topPodRows(usage, namespace === null, noHeaders);
    if (rows.length === 0) {
      const pods = lab.store.list("Pod", { ...(namespace === null ? {} : { namespace }), labels: selector.value });
      if (pods.length === 0) return fail(ctx, [namespace === null ? "No resources found" : `No resources found in ${namespace} namespace.`], ExitCode.OK);
      // kubectl's verifyEmptyMetrics: a pod older than two minutes should have metrics by now.
      for (const pod of pods) {
        const ageNs = lab.sim.now - lab.wall.nsOf(pod.metadata.creationTimestamp);
        if (ageNs > METRICS_CREATION_DELAY_NS) {
          return fail(ctx, [`error: Metrics not available for pod ${pod.metadata.namespace}/${pod.metadata.name}, age: ${formatGoDuration(ageNs)}`], ExitCode.FAILURE);
        }
      }
      return fail(ctx, ["error: metrics not available yet"], ExitCode.FAILURE);
    }
  }
  for (const line of formatTopTable(rows)) await ctx.out.line(line);
  return ExitCode.OK;
}
