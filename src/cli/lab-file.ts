// Runs one lab script file against a cluster loaded from files and prints its output in order:
// shared by `cnisim lab` and `cnisim demo`. With `network` and a Cluster object among the files, the
// lab runs on the emulated network (CNI addresses, kube-proxy, cluster DNS, pod containers, so
// `kubectl exec` works); otherwise on the control plane alone.

import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { formatDiagnostic, loadFiles } from "../k8s/index.js";
import { createNetworkLab, defaultScheduler, LabCluster, LabFiles, runLab, type LabExtensions } from "../lab/index.js";
import { err, ok } from "../util/result.js";
import { ExitCode, type CliContext } from "./command.js";

export interface LabFileOptions {
  readonly stepNs: number;
  readonly warmupNs: number;
  readonly keepGoing: boolean;
  readonly echo: boolean;
  /** Run on the emulated network when the files hold a Cluster object. */
  readonly network: boolean;
}

/** Loads `files`, builds the lab cluster, runs `script`; files the script names are read relative to its folder. */
export async function runLabFile(script: string, files: readonly string[], options: LabFileOptions, ctx: CliContext): Promise<0 | 1> {
  let text: string;
  try {
    text = readFileSync(script, "utf8");
  } catch (e) {
    await ctx.err.line(`cnisim: ${script}: cannot read: ${(e as Error).message}`);
    return ExitCode.FAILURE;
  }
  const loaded = await loadFiles(files);
  for (const w of loaded.warnings) await ctx.err.line(`cnisim: warning: ${formatDiagnostic(w)}`);
  let cluster: LabCluster;
  let extensions: LabExtensions | undefined;
  if (options.network && loaded.cluster !== undefined && loaded.errors.length === 0) {
    const made = createNetworkLab(loaded, { scheduler: defaultScheduler });
    if (!made.ok) {
      await ctx.err.line(`cnisim: ${made.error}`);
      return ExitCode.FAILURE;
    }
    for (const n of made.value.runtime.notices()) await ctx.err.line(`cnisim: ${n}`);
    cluster = made.value.cluster;
    extensions = made.value.extensions;
  } else {
    const made = LabCluster.create(loaded, { scheduler: defaultScheduler });
    if (!made.ok) {
      await ctx.err.line(`cnisim: ${made.error}`);
      return ExitCode.FAILURE;
    }
    cluster = made.value;
  }
  const base = dirname(script);
  const labFiles = new LabFiles((path) => {
    try {
      return ok(readFileSync(isAbsolute(path) ? path : resolve(base, path), "utf8"));
    } catch (e) {
      return err((e as Error).message);
    }
  });
  const lines: { stream: "out" | "err"; text: string }[] = [];
  const { network: _network, ...runOptions } = options;
  const result = runLab(
    cluster,
    text,
    { files: labFiles, ...runOptions, scriptName: script, ...(extensions === undefined ? {} : { extensions }) },
    { out: (l) => lines.push({ stream: "out", text: l }), err: (l) => lines.push({ stream: "err", text: l }) },
  );
  let last: "out" | "err" | null = null;
  for (const l of lines) {
    if (last !== null && last !== l.stream) await (last === "out" ? ctx.out : ctx.err).flush();
    await (l.stream === "out" ? ctx.out : ctx.err).line(l.text);
    last = l.stream;
  }
  return result.ok ? ExitCode.OK : ExitCode.FAILURE;
}
