// The loader's public entry points: loadText for one text, loadFiles for files and folders
// (like kubectl -f: a folder contributes its *.yaml, *.yml and *.json files, sorted, not recursive).
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Cluster } from "./cluster-types.js";
import { crossCheck } from "./cross-checks.js";
import { Severity, sortDiagnostics, type Diagnostic } from "./diagnostics.js";
import { parseText } from "./documents.js";
import { LoadState, type LoadOptions, type SourceRef } from "./load-state.js";
import type { KindName, KubeObject } from "./types.js";

export type { LoadOptions, SourceRef };

export interface LoadedObject<K extends KindName = KindName> {
  readonly object: KubeObject<K>;
  readonly source: SourceRef;
}

export interface LoadedCluster {
  readonly object: Cluster;
  readonly source: SourceRef;
}

export interface LoadResult {
  /** Accepted Kubernetes objects in file order (the Cluster object is in `cluster`). */
  readonly objects: LoadedObject[];
  readonly cluster?: LoadedCluster;
  readonly errors: Diagnostic[];
  readonly warnings: Diagnostic[];
}

const MANIFEST = /\.(ya?ml|json)$/;

function finish(state: LoadState): LoadResult {
  const accepted = crossCheck(state);
  state.flushOnce();
  const objects: LoadedObject[] = [];
  let cluster: LoadedCluster | undefined;
  for (const r of accepted) {
    if (r.kind === "Cluster") cluster = { object: r.object as unknown as Cluster, source: r.source };
    else objects.push({ object: r.object as unknown as KubeObject, source: r.source });
  }
  const result = {
    objects,
    errors: sortDiagnostics(state.errors, state.files),
    warnings: sortDiagnostics(state.warnings, state.files),
  };
  return cluster === undefined ? result : { ...result, cluster };
}

/** Loads the objects of one text (multi-document YAML or JSON); `fileName` names it in diagnostics. */
export function loadText(text: string, fileName: string, options: LoadOptions = {}): LoadResult {
  const state = new LoadState(options);
  parseText(text, fileName, state);
  return finish(state);
}

/** Loads files and folders together, so duplicates and cross-object rules see all of them. */
export async function loadFiles(paths: readonly string[], options: LoadOptions = {}): Promise<LoadResult> {
  const state = new LoadState(options);
  const origin = { line: 0, col: 0 };
  for (const path of paths) {
    let files: string[];
    try {
      if ((await stat(path)).isDirectory()) {
        files = (await readdir(path)).filter((f) => MANIFEST.test(f)).sort().map((f) => join(path, f));
        if (files.length === 0) state.report(Severity.WARNING, path, origin, "folder", "", "no .yaml, .yml or .json files here");
      } else files = [path];
    } catch (e) {
      state.report(Severity.ERROR, path, origin, "file", "", `cannot read: ${(e as Error).message}`);
      continue;
    }
    for (const file of files) {
      try {
        parseText(await readFile(file, "utf8"), file, state);
      } catch (e) {
        state.report(Severity.ERROR, file, origin, "file", "", `cannot read: ${(e as Error).message}`);
      }
    }
  }
  return finish(state);
}

