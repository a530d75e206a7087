// Typed configuration errors of the host stack (addresses, routes, neighbours): which object, which
// field, and why, in the words `ip` would use ("File exists", "Nexthop has invalid gateway").

import { err, type Err } from "../../util/result.js";

export interface StackConfigError {
  /** Namespace the change was made in. */
  readonly namespace: string;
  /** What was being changed: "address", "route", "neighbour". */
  readonly object: string;
  /** The offending field of the request ("dst", "via", "src", "dev", "prefixLen", ...). */
  readonly field: string;
  readonly reason: string;
}

export function configError(namespace: string, object: string, field: string, reason: string): Err<StackConfigError> {
  return err({ namespace, object, field, reason });
}

export function formatConfigError(e: StackConfigError): string {
  return `${e.namespace}: ${e.object}.${e.field}: ${e.reason}`;
}
