// Errors of building and running a cluster: every one names where it comes from (the Cluster file,
// an object, a node) and says what is wrong.
export interface ClusterError {
  /** The Cluster file path, "pod ns/name", "node NAME", ... */
  readonly source: string;
  readonly reason: string;
}

export function formatClusterError(e: ClusterError): string {
  return `${e.source}: ${e.reason}`;
}
