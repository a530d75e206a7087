// `cnisim top node|pod -f FILES [--traffic SPEC]... [--for 60s] [-n NS | -A] [-l SELECTOR]`: runs the
// emulated cluster (control plane and network) with the given traffic for the given simulated time
// under metrics-server's scrapes, then prints what `kubectl top` prints against it (same columns,
// rounding and errors).
import type { Command } from "commander";
import { formatTrafficSpecError, meteredEmulation, openEmulation, parseLabelSelector, parseTrafficSpec, topOutput, TrafficDriver, type FlowSpec } from "../../api/index.js";
import { parseGoDuration } from "../../lab/index.js";
import { topHeaderStyleFor } from "../../metrics/index.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";

type TopOptions = {
  file: string[];
  duration: string;
  for?: string;
  traffic: string[];
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
      .option("--for <d>", "simulated time to run (with the traffic) before printing (default 60s)")
      .option("--duration <d>", "the same as --for", "60s")
      .option("--traffic <spec>", "run this traffic meanwhile (repeatable), e.g. 'web/test->svc/web/web1:80 rate=200/s', 'udp a/x->b/y:9000 rate=5000/s size=1400', 'ping a/x->b/y'", collect, [])
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

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

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
  const duration = parseGoDuration(options.for ?? options.duration);
  if (!duration.ok) return lines(ctx, [], [`cnisim: --for: ${duration.error}`]).then(() => ExitCode.USAGE);
  const selector = parseLabelSelector(options.selector ?? null);
  if (!selector.ok) return lines(ctx, [], [`error: ${selector.error}`]).then(() => ExitCode.USAGE);
  const specs: FlowSpec[] = [];
  for (const text of options.traffic) {
    const spec = parseTrafficSpec(text);
    if (!spec.ok) return lines(ctx, [], [`cnisim: ${formatTrafficSpecError(spec.error)}`]).then(() => ExitCode.USAGE);
    specs.push(spec.value);
  }
  const opened = await openEmulation(options.file);
  if (!opened.ok) return lines(ctx, [], opened.error.map((e) => `cnisim: ${e}`)).then(() => ExitCode.FAILURE);
  const em = opened.value;
  const { lab, warnings } = em;
  const notes = warnings.map((w) => `cnisim: warning: ${w}`);
  let traffic: TrafficDriver | null = null;
  if (specs.length > 0) {
    if (em.network === null) return lines(ctx, [], [...notes, "cnisim: --traffic needs a network: give a Cluster file (cnisim.io/v1alpha1 Cluster) with -f"]).then(() => ExitCode.USAGE);
    if (!em.waitForPods()) notes.push("cnisim: warning: some pods had not started after 60s of simulated time; traffic to them fails");
    const started = TrafficDriver.start(em.network, specs, lab.wall.epochMs);
    if (!started.ok) return lines(ctx, [], [...notes, `cnisim: ${started.error}`]).then(() => ExitCode.FAILURE);
    traffic = started.value;
  }
  const { metrics, metered } = meteredEmulation(em, traffic === null ? [] : [traffic]);
  em.advance(duration.value);
  metrics.stop();
  traffic?.stop();
  em.close();
  for (const f of traffic?.flows() ?? []) notes.push(`cnisim: traffic ${f.text}: ${f.sent} sent, ${f.answered} answered, ${f.failed} failed`);
  notes.push(...metered.usageProblems().map((p) => `cnisim: warning: pod ${p.pod}: ${p.error.path}: ${p.error.reason} (idle baseline used)`));
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
