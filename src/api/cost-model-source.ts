// Finds `spec.costModel` of the loaded Cluster object and applies it to the default cost model. The
// k8s loader drops fields it does not know (with a warning), so until it keeps this one the section
// is read again from the Cluster's own YAML document (file and document index from its SourceRef).
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import type { Diagnostic, LoadResult } from "../k8s/index.js";
import { costModelFromSpec, DEFAULT_COST_MODEL, type CostModel } from "../metrics/index.js";
import { err, ok, type Result } from "../util/result.js";

function rawCostModel(load: LoadResult): Result<unknown, string> {
  const cluster = load.cluster;
  if (cluster === undefined) return ok(undefined);
  const kept = (cluster.object.spec as { costModel?: unknown }).costModel;
  if (kept !== undefined) return ok(kept);
  const { file, document } = cluster.source;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    return err(`${file}: cannot read: ${(e as Error).message}`);
  }
  const doc = parseAllDocuments(text)[document - 1];
  if (doc === undefined || !("toJS" in doc)) return ok(undefined);
  const js = doc.toJS() as { spec?: { costModel?: unknown } } | null;
  return ok(js?.spec?.costModel);
}

/** The cost model of the loaded cluster; errors as `FILE: spec.costModel.x: reason` lines. */
export function costModelOf(load: LoadResult): Result<CostModel, string[]> {
  const raw = rawCostModel(load);
  if (!raw.ok) return err([raw.error]);
  const model = costModelFromSpec(raw.value, DEFAULT_COST_MODEL);
  if (model.ok) return ok(model.value);
  const file = load.cluster?.source.file ?? "";
  return err(model.error.map((e) => `${file}: ${e.path}: ${e.reason}`));
}

/** Loader warnings other than the costModel field this layer reads itself. */
export function warningsBesidesCostModel(load: LoadResult): Diagnostic[] {
  return load.warnings.filter((w) => w.path !== "spec.costModel");
}

