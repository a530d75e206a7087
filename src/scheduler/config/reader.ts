// Typed reading of a parsed YAML document with positions: every field access checks the JSON type,
// rejects unknown fields (kube-scheduler decodes its configuration strictly) and reports errors as
// k8s-layer Diagnostics naming file:line:col, the object and the field path.
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node } from "yaml";
import { Severity, type Diagnostic } from "../../k8s/index.js";

interface Pos {
  readonly line: number;
  readonly col: number;
}

type Json = Record<string, unknown>;

export class ConfigReader {
  readonly diagnostics: Diagnostic[] = [];
  private readonly positions = new Map<string, Pos>();

  constructor(
    readonly file: string,
    readonly object: string,
  ) {}

  /** Parses the first non-empty YAML document; null (with a diagnostic) when there is none or it is not valid YAML. */
  parse(text: string): unknown {
    const lc = new LineCounter();
    const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: false });
    const list: Document[] = Array.isArray(docs) ? docs : [];
    for (const doc of list) {
      if (doc.errors.length > 0) {
        const e = doc.errors[0]!;
        const { line, col } = lc.linePos(e.pos[0]);
        this.diagnostics.push({ severity: Severity.ERROR, file: this.file, line, col, object: this.object, path: "", message: `yaml: ${e.message.split("\n")[0]}` });
        return null;
      }
      const root = doc.contents;
      if (root === null || (isScalar(root) && root.value === null)) continue;
      this.record(root, "", lc);
      return doc.toJS();
    }
    this.error("", "the file holds no document");
    return null;
  }

  private record(node: unknown, path: string, lc: LineCounter): void {
    const range = (node as Node | null)?.range;
    if (range !== undefined && range !== null) this.positions.set(path, lc.linePos(range[0]));
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : "";
        this.record(pair.value ?? pair.key, path === "" ? key : `${path}.${key}`, lc);
      }
    } else if (isSeq(node)) node.items.forEach((item, i) => this.record(item, `${path}[${i}]`, lc));
  }

  private posOf(path: string): Pos {
    for (let p = path; ; ) {
      const hit = this.positions.get(p);
      if (hit !== undefined) return hit;
      if (p === "") return { line: 1, col: 1 };
      const cut = Math.max(p.lastIndexOf("."), p.lastIndexOf("["));
      p = cut < 0 ? "" : p.slice(0, cut);
    }
  }

  error(path: string, message: string): void {
    const { line, col } = this.posOf(path);
    this.diagnostics.push({ severity: Severity.ERROR, file: this.file, line, col, object: this.object, path, message });
  }

  warn(path: string, message: string): void {
    const { line, col } = this.posOf(path);
    this.diagnostics.push({ severity: Severity.WARNING, file: this.file, line, col, object: this.object, path, message });
  }

  get failed(): boolean {
    return this.diagnostics.some((d) => d.severity === Severity.ERROR);
  }

  /** A map with only the known fields; null when absent or not a map. */
  map(value: unknown, path: string, known: readonly string[]): Json | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== "object" || Array.isArray(value)) {
      this.error(path, `must be a map, not ${describe(value)}`);
      return null;
    }
    for (const k of Object.keys(value)) if (!known.includes(k)) this.error(join(path, k), `unknown field ${JSON.stringify(k)}`);
    return value as Json;
  }

  list(value: unknown, path: string): unknown[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.error(path, `must be a list, not ${describe(value)}`);
      return [];
    }
    return value;
  }

  str(value: unknown, path: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") {
      this.error(path, `must be a string, not ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  bool(value: unknown, path: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "boolean") {
      this.error(path, `must be a boolean, not ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  /** An integer within [min, max]; out-of-range values are reported with upstream's "not in valid range" wording. */
  int(value: unknown, path: string, min: number, max: number): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "number" || !Number.isInteger(value)) {
      this.error(path, `must be an integer, not ${describe(value)}`);
      return undefined;
    }
    if (value < min || value > max) {
      this.error(path, `Invalid value: ${value}: not in valid range [${min}, ${max}]`);
      return undefined;
    }
    return value;
  }
}

export const join = (path: string, key: string): string => (path === "" ? key : `${path}.${key}`);

function describe(v: unknown): string {
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  if (typeof v === "string") return "a string";
  if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a number";
  if (typeof v === "boolean") return "a boolean";
  return typeof v;
}
