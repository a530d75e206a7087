// Walks a YAML node tree against a Shape: checks JSON types and per-value rules, records the
// line/column of every field path, reports unknown fields, and builds the plain JS value
// (unknown fields dropped, nulls treated as absent, as Go's JSON decoding does).
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from "yaml";
import { p } from "./paths.js";
import { parseQuantity } from "./quantity.js";
import type { Shape } from "./schema/shape.js";

export interface Pos {
  readonly line: number;
  readonly col: number;
}

export interface WalkSink {
  error(path: string, pos: Pos, message: string): void;
  /** A field the schema does not know: ignored, reported once per kind and path. */
  unknownField(path: string, pos: Pos): void;
  /** A valid field cnisim does not model: dropped, reported once per kind and path. */
  unsupportedField(path: string, pos: Pos, note: string): void;
}

export interface WalkContext {
  readonly doc: Document;
  readonly lineCounter: LineCounter;
  /** Field path -> position of its value node (filled while walking). */
  readonly positions: Map<string, Pos>;
  readonly sink: WalkSink;
}


function resolve(node: unknown, ctx: WalkContext): unknown {
  let n = node;
  for (let depth = 0; isAlias(n) && depth < 64; depth++) n = n.resolve(ctx.doc);
  return n;
}

export function posOf(node: unknown, ctx: WalkContext): Pos {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  const { line, col } = ctx.lineCounter.linePos(range?.[0] ?? 0);
  return { line, col };
}

function isNull(node: unknown): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

function describe(node: unknown): string {
  if (isMap(node)) return "a map";
  if (isSeq(node)) return "a list";
  if (isScalar(node)) {
    const v = node.value;
    if (typeof v === "string") return "a string";
    if (typeof v === "number") return Number.isInteger(v) ? "an integer" : "a number";
    if (typeof v === "boolean") return "a boolean";
    return "a binary value";
  }
  return "a YAML node";
}

function mismatch(expected: string, node: unknown): string {
  return `must be ${expected}, not ${describe(node)}`;
}

export interface MapEntry {
  readonly key: string;
  readonly keyNode: unknown;
  readonly value: unknown;
}

/** Entries of a YAML map with `<<` merge keys expanded (explicit keys win, then earlier merges). */
export function mapEntries(node: unknown, ctx: WalkContext): MapEntry[] {
  const out: MapEntry[] = [];
  const seen = new Set<string>();
  const merged: MapEntry[] = [];
  const items = (isMap(node) ? node.items : []) as Pair[];
  for (const pair of items) {
    const k = pair.key;
    if (isScalar(k) && k.source === "<<" && k.value !== "<<") {
      const v = resolve(pair.value, ctx);
      const sources = isSeq(v) ? v.items.map((x) => resolve(x, ctx)) : [v];
      for (const s of sources) merged.push(...mapEntries(s, ctx));
      continue;
    }
    const key = isScalar(k) ? String(k.value) : JSON.stringify((k as Node | null)?.toJSON?.() ?? k);
    seen.add(key);
    out.push({ key, keyNode: k, value: pair.value });
  }
  for (const m of merged) {
    if (seen.has(m.key)) continue;
    seen.add(m.key);
    out.push(m);
  }
  return out;
}

/** Validates `node` against `shape`; returns the JS value, or undefined when absent or invalid. */
export function walk(rawNode: unknown, shape: Shape, path: string, ctx: WalkContext): unknown {
  const node = resolve(rawNode, ctx);
  if (isNull(node)) return undefined;
  const pos = posOf(node, ctx);
  ctx.positions.set(path, pos);
  const fail = (message: string): undefined => {
    ctx.sink.error(path, pos, message);
    return undefined;
  };
  const scalar = isScalar(node) ? node.value : undefined;
  switch (shape.t) {
    case "string":
      if (typeof scalar !== "string") return fail(mismatch("a string", node));
      return check(shape.check, scalar, fail);
    case "enum":
      if (typeof scalar !== "string" || !shape.values.includes(scalar)) return fail(`must be one of ${shape.values.join(", ")}`);
      return scalar;
    case "int":
      if (typeof scalar !== "number" || !Number.isInteger(scalar)) return fail(mismatch("an integer", node));
      if ((shape.min !== undefined && scalar < shape.min) || (shape.max !== undefined && scalar > shape.max)) {
        return fail(shape.rangeMessage ?? rangeMessage(shape.min, shape.max));
      }
      return scalar;
    case "number":
      if (typeof scalar !== "number") return fail(mismatch("a number", node));
      return scalar;
    case "bool":
      if (typeof scalar !== "boolean") return fail(mismatch("a boolean", node));
      return scalar;
    case "intOrString":
      if (typeof scalar === "number" && Number.isInteger(scalar)) {
        const m = shape.checkInt?.(scalar) ?? null;
        return m === null ? scalar : fail(m);
      }
      if (typeof scalar === "string") return check(shape.checkString, scalar, fail);
      return fail(mismatch("an integer or a string", node));
    case "quantity": {
      if (typeof scalar !== "string" && typeof scalar !== "number") return fail(mismatch("a quantity such as 250m or 128Mi", node));
      const text = String(scalar);
      const q = parseQuantity(text);
      return q.ok ? text : fail(`invalid value ${JSON.stringify(text)}: ${q.error}`);
    }
    case "opaque":
      return (node as Node).toJS(ctx.doc);
    case "unsupported":
      ctx.sink.unsupportedField(path, pos, shape.note);
      return undefined;
    case "list": {
      if (!isSeq(node)) return fail(mismatch("a list", node));
      const out: unknown[] = [];
      node.items.forEach((item, i) => {
        const child = p.index(path, i);
        const r = resolve(item, ctx);
        if (isNull(r)) {
          // Go decodes a null list entry as the zero value of the element type.
          const at = posOf(r ?? node, ctx);
          if (shape.item.t === "object") {
            ctx.positions.set(child, at);
            for (const name of shape.item.required) ctx.sink.error(p.field(child, name), at, "required value");
            out.push({});
          } else ctx.sink.error(child, at, "must not be null");
          return;
        }
        const v = walk(item, shape.item, child, ctx);
        if (v !== undefined) out.push(v);
      });
      return out;
    }
    case "map": {
      if (!isMap(node)) return fail(mismatch("a map", node));
      const out: Record<string, unknown> = {};
      for (const e of mapEntries(node, ctx)) {
        const child = p.key(path, e.key);
        const keyMsg = shape.key?.(e.key) ?? null;
        if (keyMsg !== null) {
          ctx.sink.error(child, posOf(e.keyNode, ctx), keyMsg);
          continue;
        }
        const v = walk(e.value, shape.value, child, ctx);
        if (v !== undefined) out[e.key] = v;
        else if (isNull(resolve(e.value, ctx)) && shape.value.t === "string") {
          // `key:` with no value is the empty string for string maps (labels: {a: }).
          ctx.positions.set(child, posOf(e.keyNode, ctx));
          out[e.key] = "";
        }
      }
      return out;
    }
    case "object": {
      if (!isMap(node)) return fail(mismatch("a map", node));
      const out: Record<string, unknown> = {};
      const entries = mapEntries(node, ctx);
      for (const e of entries) {
        const child = p.field(path, e.key);
        const fieldShape = shape.fields[e.key];
        if (fieldShape === undefined) {
          ctx.sink.unknownField(child, posOf(e.keyNode, ctx));
          continue;
        }
        const v = walk(e.value, fieldShape, child, ctx);
        if (v !== undefined) out[e.key] = v;
        else if (!ctx.positions.has(child)) ctx.positions.set(child, posOf(e.keyNode, ctx));
      }
      for (const name of shape.required) {
        if (!entries.some((e) => e.key === name && !isNull(resolve(e.value, ctx)))) {
          ctx.sink.error(p.field(path, name), pos, "required value");
        }
      }
      return out;
    }
  }
}

function check(c: ((v: string) => string | null) | undefined, value: string, fail: (m: string) => undefined): string | undefined {
  const m = c?.(value) ?? null;
  return m === null ? value : fail(m);
}

function rangeMessage(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `must be between ${min} and ${max}, inclusive`;
  if (min !== undefined) return `must be greater than or equal to ${min}`;
  return `must be less than or equal to ${max}`;
}
