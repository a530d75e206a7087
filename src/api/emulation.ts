// Opens an emulated cluster from files for `serve` and `top`: loads them, builds the LabCluster
// (store, controllers, scheduler on simulated time) and the cost model of its Cluster object.
import { formatDiagnostic, loadFiles } from "../k8s/index.js";
import { defaultScheduler, LabCluster } from "../lab/index.js";
import type { CostModel } from "../metrics/index.js";
import { err, ok, type Result } from "../util/result.js";
import { costModelOf, warningsBesidesCostModel } from "./cost-model-source.js";

export interface Emulation {
  readonly lab: LabCluster;
  readonly model: CostModel;
  /** Loader warnings, formatted. */
  readonly warnings: readonly string[];
}

export interface EmulationOptions {
  /** Wall-clock ms of simulated time 0 (default: the lab's fixed epoch, for reproducible output). */
  readonly epochMs?: number;
}

export async function openEmulation(files: readonly string[], options: EmulationOptions = {}): Promise<Result<Emulation, string[]>> {
  const loaded = await loadFiles([...files]);
  const warnings = warningsBesidesCostModel(loaded).map(formatDiagnostic);
  if (loaded.errors.length > 0) return err(loaded.errors.map(formatDiagnostic));
  const model = costModelOf(loaded);
  if (!model.ok) return err(model.error);
  const lab = LabCluster.create(loaded, { scheduler: defaultScheduler, ...(options.epochMs === undefined ? {} : { epochMs: options.epochMs }) });
  if (!lab.ok) return err([lab.error]);
  return ok({ lab: lab.value, model: model.value, warnings });
}
