// `cnisim schedule -f FILES... [--explain] [-o table|json]`: loads nodes (a Cluster and/or Node objects)
// and pods, schedules every pod without spec.nodeName as kube-scheduler's default profile (or a
// --config KubeSchedulerConfiguration) would, and prints where each landed or why it stays Pending.

import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { formatDiagnostic, loadFiles, storeFromLoad } from "../../k8s/index.js";
import {
  finalResults,
  jsonReport,
  loadSchedulerConfiguration,
  parseKubeVersion,
  Scheduler,
  textReport,
  type SchedulerConfiguration,
} from "../../scheduler/index.js";
import { isSeed, MAX_SEED, SeededRng } from "../../util/rng.js";
import { ExitCode, type CliCommand, type CliContext, type ExitCodeValue } from "../command.js";

type ScheduleOptions = { filename: string[]; explain?: boolean; output: string; config?: string; kubernetesVersion?: string; seed?: string; namespace: string };

export const scheduleCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    program
      .command("schedule")
      .description("place pods on nodes as kube-scheduler (v1.30 default profile) would, or say why they stay Pending")
      .requiredOption("-f, --filename <files...>", "YAML/JSON files or folders: a Cluster and/or Node objects, and Pods")
      .option("--explain", "per pod, every node's filter verdict and scores")
      .option("-o, --output <format>", "table or json", "table")
      .option("--config <file>", "a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) to use instead of the default profile")
      .option("--kubernetes-version <version>", "emulated kube-scheduler version (default: the Cluster's, else v1.30.2)")
      .option("--seed <n>", "seed of the tie-breaking RNG (default: the Cluster's, else 1)")
      .option("-n, --namespace <ns>", "namespace for objects that name none", "default")
      .addHelpText("after", "\nExit codes: 0 scheduled (pods may stay Pending); 1 the input could not be loaded; 2 bad command line.")
      .action(async (options: ScheduleOptions) => {
        ctx.exitCode = await schedule(options, ctx);
      });
  },
};

async function schedule(options: ScheduleOptions, ctx: CliContext): Promise<ExitCodeValue> {
  if (options.output !== "table" && options.output !== "json") {
    await ctx.err.line(`cnisim: -o ${options.output}: must be table or json`);
    return ExitCode.USAGE;
  }
  const seed = options.seed === undefined ? undefined : Number(options.seed);
  // The Cluster file's spec.seed range: the RNG takes 32 bits, so -1 would act as 4294967295.
  if (seed !== undefined && !isSeed(seed)) {
    await ctx.err.line(`cnisim: --seed ${options.seed}: must be an integer between 0 and ${MAX_SEED}`);
    return ExitCode.USAGE;
  }
  const loaded = await loadFiles(options.filename, { namespace: options.namespace });
  for (const w of loaded.warnings) await ctx.err.line(`cnisim: warning: ${formatDiagnostic(w)}`);
  if (loaded.errors.length > 0) {
    for (const e of loaded.errors) await ctx.err.line(`cnisim: ${formatDiagnostic(e)}`);
    return ExitCode.FAILURE;
  }
  const cluster = loaded.cluster?.object;
  const versionText = options.kubernetesVersion ?? cluster?.spec.kubernetesVersion ?? "v1.30.2";
  const version = parseKubeVersion(versionText);
  if (version === null) {
    await ctx.err.line(`cnisim: --kubernetes-version ${versionText}: not a version such as v1.30.2`);
    return ExitCode.USAGE;
  }
  let configuration: SchedulerConfiguration | undefined;
  if (options.config !== undefined) {
    let text: string;
    try {
      text = await readFile(options.config, "utf8");
    } catch (e) {
      await ctx.err.line(`cnisim: ${options.config}: cannot read: ${(e as Error).message}`);
      return ExitCode.FAILURE;
    }
    const c = loadSchedulerConfiguration(text, options.config);
    if (!c.ok) {
      for (const d of c.error) await ctx.err.line(`cnisim: ${formatDiagnostic(d)}`);
      return ExitCode.FAILURE;
    }
    for (const w of c.value.warnings) await ctx.err.line(`cnisim: warning: ${formatDiagnostic(w)}`);
    configuration = c.value.configuration;
  }
  for (const o of loaded.objects) {
    const k = o.object.kind;
    if (k === "Deployment" || k === "ReplicaSet" || k === "DaemonSet") {
      await ctx.err.line(`cnisim: note: ${k} ${o.object.metadata.namespace}/${o.object.metadata.name}: no controllers run in "schedule"; only Pods are scheduled`);
    }
  }
  const store = storeFromLoad(loaded);
  const scheduler = new Scheduler(store, {
    rng: new SeededRng(seed ?? cluster?.spec.seed ?? 1),
    kubernetesVersion: version,
    ...(configuration === undefined ? {} : { configuration }),
  });
  const results = finalResults(scheduler.scheduleAll());
  scheduler.dispose();
  if (options.output === "json") await ctx.out.line(jsonReport(results));
  else if (results.length === 0) await ctx.out.line(`No pending pods: ${store.count("Pod")} pod(s), all bound by spec.nodeName or not for this scheduler.`);
  else for (const line of textReport(results, options.explain === true)) await ctx.out.line(line);
  return ExitCode.OK;
}
