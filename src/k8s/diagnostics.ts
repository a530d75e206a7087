// Diagnostics of the YAML loader: one error or warning with its file, line, column,
// the object it belongs to ("Deployment web/webapp") and the field path inside it.

export const Severity = { ERROR: "error", WARNING: "warning" } as const;
export type Severity = (typeof Severity)[keyof typeof Severity];

export interface Diagnostic {
  readonly severity: Severity;
  readonly file: string;
  /** 1-based line and column of the offending YAML node. */
  readonly line: number;
  readonly col: number;
  /** "Kind ns/name", "Kind name" for cluster-scoped kinds, or "document N" when the kind is unknown. */
  readonly object: string;
  /** Field path inside the object, e.g. "spec.template.spec.tolerations[0].effect"; "" for the whole object. */
  readonly path: string;
  readonly message: string;
}

/** `FILE:LINE:COL: Kind ns/name: object.path: message` (the path part is left out when empty). */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.line}:${d.col}: ${d.object}: `;
  return d.path === "" ? where + d.message : `${where}${d.path}: ${d.message}`;
}

/** Orders diagnostics by file (in the order files were given), then line, then column. */
export function sortDiagnostics(list: Diagnostic[], fileOrder: readonly string[]): Diagnostic[] {
  const rank = new Map<string, number>();
  fileOrder.forEach((f, i) => {
    if (!rank.has(f)) rank.set(f, i);
  });
  return list
    .map((d, i) => ({ d, i }))
    .sort(
      (a, b) =>
        (rank.get(a.d.file) ?? 1e9) - (rank.get(b.d.file) ?? 1e9) ||
        a.d.line - b.d.line ||
        a.d.col - b.d.col ||
        a.i - b.i,
    )
    .map((x) => x.d);
}
