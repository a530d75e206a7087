// A small model of Go types, enough to print values the way go-spew's "%#v" does: scalar, pointer,
// slice, map and struct types with their Go type names, plus "opaque" types known only by name
// (their nil value prints exactly; a non-nil one cannot be reproduced and marks the output inexact).

export type ScalarKind = "string" | "bool" | "int" | "uint";

export type GoType =
  | { readonly kind: "scalar"; readonly name: string; readonly scalar: ScalarKind }
  | { readonly kind: "ptr"; readonly elem: GoType }
  | { readonly kind: "slice"; readonly elem: GoType; readonly name?: string }
  | { readonly kind: "map"; readonly key: GoType; readonly value: GoType; readonly name?: string }
  | { readonly kind: "struct"; readonly name: string; readonly fields: readonly GoField[] }
  | { readonly kind: "time"; readonly name: string }
  | { readonly kind: "opaque"; readonly name: string };

/** A struct field: Go name, JSON key (null for an inlined struct read from the same JSON object), type. */
export interface GoField {
  readonly go: string;
  readonly json: string | null;
  readonly type: GoType;
}

export const str = (name = "string"): GoType => ({ kind: "scalar", name, scalar: "string" });
export const bool: GoType = { kind: "scalar", name: "bool", scalar: "bool" };
export const int = (name: string): GoType => ({ kind: "scalar", name, scalar: "int" });
export const uint = (name: string): GoType => ({ kind: "scalar", name, scalar: "uint" });
export const ptr = (elem: GoType): GoType => ({ kind: "ptr", elem });
export const slice = (elem: GoType, name?: string): GoType => (name === undefined ? { kind: "slice", elem } : { kind: "slice", elem, name });
export const map = (key: GoType, value: GoType, name?: string): GoType =>
  name === undefined ? { kind: "map", key, value } : { kind: "map", key, value, name };
export const opaque = (name: string): GoType => ({ kind: "opaque", name });
export const struct = (name: string, fields: readonly (readonly [string, string | null, GoType])[]): GoType => ({
  kind: "struct",
  name,
  fields: fields.map(([go, json, type]) => ({ go, json, type })),
});

/** The name reflect.Type.String() gives, e.g. "*v1.Affinity", "[]string", "map[string]string". */
export function goTypeName(t: GoType): string {
  switch (t.kind) {
    case "scalar":
    case "struct":
    case "time":
    case "opaque":
      return t.name;
    case "ptr":
      return `*${goTypeName(t.elem)}`;
    case "slice":
      return t.name ?? `[]${goTypeName(t.elem)}`;
    case "map":
      return t.name ?? `map[${goTypeName(t.key)}]${goTypeName(t.value)}`;
  }
}
