// go-spew's "%#v" rendering (ConfigState{SortKeys, DisableMethods, SpewKeys}, as Kubernetes'
// hashutil.DeepHashObject uses it) of a JSON value read into a Go type. The rules follow spew's
// formatState: "(type)value" except where spew suppresses the type (slice elements, map keys and
// values, a pointer's target), raw strings, "<nil>" for nil pointers, slices and maps, struct
// fields as Name:value. Empty JSON lists and maps count as nil: the controllers read objects
// decoded from protobuf, where an empty repeated field or map comes back nil.
import { stableJson } from "../objects.js";
import { goTypeName, type GoType } from "./go-value.js";

export interface SpewResult {
  readonly text: string;
  /** False when a value of an opaque type (or a set timestamp) had to be approximated. */
  readonly exact: boolean;
}

type Json = unknown;

const isNilSlice = (v: Json): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);

function isEmptyMap(v: Json): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}


class Printer {
  out = "";
  exact = true;
  /** spew's ignoreNextType flag. */
  private ignoreType = false;

  format(t: GoType, v: Json): void {
    if (t.kind === "ptr") {
      this.formatPtr(t, v);
      return;
    }
    if (!this.ignoreType) this.out += `(${goTypeName(t)})`;
    this.ignoreType = false;
    switch (t.kind) {
      case "scalar":
        this.out += scalarText(t.scalar, v);
        return;
      case "time":
        if (v !== undefined && v !== null) this.exact = false;
        // metav1.Time{Time: time.Time{wall, ext, loc}}; only the zero time is modelled.
        this.out += "{Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}";
        return;
      case "opaque":
        this.exact = false;
        this.out += stableJson(v);
        return;
      case "slice": {
        if (isNilSlice(v) || !Array.isArray(v)) {
          this.out += "<nil>";
          return;
        }
        this.out += "[";
        v.forEach((item, i) => {
          if (i > 0) this.out += " ";
          this.ignoreType = true;
          this.format(t.elem, item);
        });
        this.out += "]";
        return;
      }
      case "map": {
        if (v === undefined || v === null || isEmptyMap(v) || typeof v !== "object") {
          this.out += "<nil>";
          return;
        }
        const o = v as Record<string, Json>;
        this.out += "map[";
        Object.keys(o)
          .sort()
          .forEach((k, i) => {
            if (i > 0) this.out += " ";
            this.ignoreType = true;
            this.format(t.key, k);
            this.out += ":";
            this.ignoreType = true;
            this.format(t.value, o[k]);
          });
        this.out += "]";
        return;
      }
      case "struct": {
        const o = (typeof v === "object" && v !== null ? v : {}) as Record<string, Json>;
        this.out += "{";
        t.fields.forEach((f, i) => {
          if (i > 0) this.out += " ";
          this.out += `${f.go}:`;
          this.format(f.type, f.json === null ? o : o[f.json]);
        });
        this.out += "}";
        return;
      }
    }
  }

  private formatPtr(t: GoType & { kind: "ptr" }, v: Json): void {
    const nil = v === undefined || v === null;
    if (nil && this.ignoreType) {
      // spew writes "<nil>" and returns without clearing ignoreNextType.
      this.out += "<nil>";
      return;
    }
    if (nil) {
      this.out += `(${goTypeName(t)})<nil>`;
      return;
    }
    if (!this.ignoreType) this.out += `(${goTypeName(t)})`;
    this.ignoreType = true;
    this.format(t.elem, v);
  }
}

function scalarText(kind: "string" | "bool" | "int" | "uint", v: Json): string {
  switch (kind) {
    case "string":
      return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
    case "bool":
      return v === true ? "true" : "false";
    case "int":
    case "uint":
      return typeof v === "number" && Number.isFinite(v) ? String(Math.trunc(v)) : "0";
  }
}

/** Renders `value` (JSON-shaped) read into Go type `type` as go-spew's "%#v" would print it. */
export function spewGoValue(type: GoType, value: unknown): SpewResult {
  const p = new Printer();
  p.format(type, value);
  return { text: p.out, exact: p.exact };
}
