// kubectl's -o yaml / -o json rendering: map keys sorted (sigs.k8s.io/yaml marshals through
// JSON maps), block sequences at the parent's indentation, a List wrapping several objects.
import { stringify } from "yaml";

export function toYaml(value: unknown): string[] {
  return stringify(value, { sortMapEntries: true, indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false }).replace(/\n$/, "").split("\n");
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .sort()
        .filter((k) => o[k] !== undefined)
        .map((k) => [k, sortKeys(o[k])]),
    );
  }
  return v;
}

export function toJson(value: unknown): string[] {
  return JSON.stringify(sortKeys(value), null, 4).split("\n");
}

export function asList(items: readonly unknown[]): unknown {
  return { apiVersion: "v1", items, kind: "List", metadata: { resourceVersion: "" } };
}
