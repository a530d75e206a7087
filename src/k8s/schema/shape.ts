// A small schema language for Kubernetes object fields: which fields exist, their JSON types,
// and simple per-value checks. The walker (../walk.ts) applies a Shape to a YAML node tree.

/** Returns null when the string is valid, else a message. */
export type StringCheck = (value: string) => string | null;
export type IntCheck = (value: number) => string | null;

export type Shape =
  | { readonly t: "string"; readonly check?: StringCheck }
  | { readonly t: "int"; readonly min?: number; readonly max?: number; readonly rangeMessage?: string }
  | { readonly t: "number" }
  | { readonly t: "bool" }
  | { readonly t: "enum"; readonly values: readonly string[] }
  | { readonly t: "intOrString"; readonly checkInt?: IntCheck; readonly checkString?: StringCheck }
  | { readonly t: "quantity" }
  | { readonly t: "object"; readonly fields: Readonly<Record<string, Shape>>; readonly required: readonly string[] }
  | { readonly t: "list"; readonly item: Shape }
  | { readonly t: "map"; readonly value: Shape; readonly key?: StringCheck }
  /** A valid Kubernetes field cnisim keeps but does not inspect (volumes, probes, ...). */
  | { readonly t: "opaque" }
  /** A valid Kubernetes field cnisim does not model: dropped, and reported once as a warning. */
  | { readonly t: "unsupported"; readonly note: string };

export type ObjectShape = Extract<Shape, { t: "object" }>;

export const str = (check?: StringCheck): Shape => (check === undefined ? { t: "string" } : { t: "string", check });
export const int = (min?: number, max?: number, rangeMessage?: string): Shape => ({
  t: "int",
  ...(min === undefined ? {} : { min }),
  ...(max === undefined ? {} : { max }),
  ...(rangeMessage === undefined ? {} : { rangeMessage }),
});
export const num: Shape = { t: "number" };
export const bool: Shape = { t: "bool" };
export const oneOf = (...values: string[]): Shape => ({ t: "enum", values });
export const intOrString = (checkInt?: IntCheck, checkString?: StringCheck): Shape => ({
  t: "intOrString",
  ...(checkInt === undefined ? {} : { checkInt }),
  ...(checkString === undefined ? {} : { checkString }),
});
export const quantity: Shape = { t: "quantity" };
export const obj = (fields: Record<string, Shape>, required: readonly string[] = []): ObjectShape => ({
  t: "object",
  fields,
  required,
});
export const list = (item: Shape): Shape => ({ t: "list", item });
export const map = (value: Shape, key?: StringCheck): Shape => (key === undefined ? { t: "map", value } : { t: "map", value, key });
export const opaque: Shape = { t: "opaque" };
export const unsupported = (note: string): Shape => ({ t: "unsupported", note });
/** A list whose entries cnisim does not inspect. */
export const opaqueList: Shape = { t: "list", item: opaque };
