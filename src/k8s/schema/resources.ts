// Resource names in requests, limits and allocatable: the standard ones or fully qualified
// extended resources ("example.com/gpu"), as the API server requires.
import { checkQualifiedName } from "../names.js";

const STANDARD_CONTAINER = ["cpu", "memory", "ephemeral-storage"];
const STANDARD_NODE = [...STANDARD_CONTAINER, "pods"];

export function resourceNameCheck(scope: "container" | "node") {
  const standard = scope === "node" ? STANDARD_NODE : STANDARD_CONTAINER;
  return (name: string): string | null => {
    if (standard.includes(name) || name.startsWith("hugepages-")) return null;
    if (name.includes("/") && checkQualifiedName(name) === null && !name.startsWith("kubernetes.io/")) return null;
    return `invalid value ${JSON.stringify(name)}: must be a standard resource type or fully qualified`;
  };
}
