// Mutable bookkeeping of one load: the objects accepted so far with their positions, the
// diagnostics, and the warnings that are listed once however often they occur.
import { Severity, type Diagnostic } from "./diagnostics.js";
import { parentPath } from "./paths.js";
import type { Pos } from "./walk.js";

export interface LoadOptions {
  /** Namespace for namespaced objects that name none (kubectl's context namespace); default "default". */
  readonly namespace?: string;
}

export interface SourceRef {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** 1-based index of the YAML document in its file. */
  readonly document: number;
}

/** An accepted object (no errors), before it is typed for the result. */
export interface ObjectRecord {
  readonly kind: string;
  readonly object: Record<string, unknown>;
  readonly label: string;
  readonly source: SourceRef;
  readonly positions: ReadonlyMap<string, Pos>;
}

/** Position of the nearest node that exists for `path` (itself or an ancestor). */
export function nearestPos(positions: ReadonlyMap<string, Pos>, path: string, fallback: Pos): Pos {
  for (let p = path; ; p = parentPath(p)) {
    const pos = positions.get(p);
    if (pos !== undefined) return pos;
    if (p === "") return fallback;
  }
}

export class LoadState {
  readonly records: ObjectRecord[] = [];
  readonly errors: Diagnostic[] = [];
  readonly warnings: Diagnostic[] = [];
  readonly files: string[] = [];
  private readonly once = new Map<string, { diag: Diagnostic; count: number }>();

  constructor(readonly options: LoadOptions) {}

  get defaultNamespace(): string {
    return this.options.namespace ?? "default";
  }

  report(severity: Severity, file: string, pos: Pos, object: string, path: string, message: string): void {
    const d: Diagnostic = { severity, file, line: pos.line, col: pos.col, object, path, message };
    (severity === Severity.ERROR ? this.errors : this.warnings).push(d);
  }

  /** A warning listed once per key; later occurrences only raise its count. */
  warnOnce(key: string, file: string, pos: Pos, object: string, path: string, message: string): void {
    const seen = this.once.get(key);
    if (seen !== undefined) seen.count++;
    else this.once.set(key, { diag: { severity: Severity.WARNING, file, line: pos.line, col: pos.col, object, path, message }, count: 1 });
  }

  /** Moves the listed-once warnings into `warnings`, noting how often each occurred. */
  flushOnce(): void {
    for (const { diag, count } of this.once.values()) {
      const more = count - 1;
      this.warnings.push(more === 0 ? diag : { ...diag, message: `${diag.message} (and ${more} more like it)` });
    }
    this.once.clear();
  }
}
