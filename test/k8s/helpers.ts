// Test helpers for the k8s layer: repository paths and YAML text positions.
import { resolve } from "node:path";
import { formatDiagnostic, type Diagnostic } from "../../src/k8s/diagnostics.js";

/** A path under ../shared (beside the repository root; tests run from the root). */
export const sharedPath = (rel: string): string => resolve(process.cwd(), "../shared", rel);
export const repoPath = (rel: string): string => resolve(process.cwd(), rel);

/** "LINE:COL" (1-based) of the nth occurrence of `needle` in `text`, found by plain text search. */
export function at(text: string, needle: string, nth = 1): string {
  let idx = -1;
  for (let i = 0; i < nth; i++) {
    idx = text.indexOf(needle, idx + 1);
    if (idx < 0) throw new Error(`test bug: ${JSON.stringify(needle)} occurs fewer than ${nth} times`);
  }
  const before = text.slice(0, idx);
  const line = before.split("\n").length;
  const col = idx - before.lastIndexOf("\n");
  return `${line}:${col}`;
}

export const fmt = (list: readonly Diagnostic[]): string[] => list.map(formatDiagnostic);
