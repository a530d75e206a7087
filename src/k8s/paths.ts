// Field paths as Kubernetes prints them: "spec.template.spec.tolerations[0].effect",
// map keys in brackets ("metadata.labels[app.kubernetes.io/name]").

export const p = {
  field: (parent: string, name: string): string => (parent === "" ? name : `${parent}.${name}`),
  index: (parent: string, i: number): string => `${parent}[${i}]`,
  key: (parent: string, key: string): string => `${parent}[${key}]`,
};

/** Parent of a field path: "a.b[0].c" -> "a.b[0]" -> "a.b" -> "a" -> "". */
export function parentPath(path: string): string {
  if (path.endsWith("]")) {
    const open = path.lastIndexOf("[");
    return open <= 0 ? "" : path.slice(0, open);
  }
  const dot = path.lastIndexOf(".");
  const bracket = path.lastIndexOf("]");
  if (dot < 0) return "";
  return bracket > dot ? path.slice(0, bracket + 1) : path.slice(0, dot);
}
