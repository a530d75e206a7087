// What every IPAM of the CNI layer offers the plugins: addresses for pods (honouring a requested
// address when it is free and inside the pool), node-level addresses (tunnel, bridge gateway),
// release, and errors that name the pod and the address.
import type { Result } from "../../util/result.js";

export interface IpamRequest {
  /** "namespace/name" of the pod (named in errors). */
  readonly pod: string;
  /** Owner handle: the pod key, or a longer handle such as the kubelet's "ns/name/uid". */
  readonly handle: string;
  readonly node: string;
  /** A specific address the pod asks for (Calico's ipAddrs annotation, status.podIP); null = any. */
  readonly requested: number | null;
}

export interface IpamError {
  /** "namespace/name" of the pod, or "node NAME" for node addresses. */
  readonly subject: string;
  readonly reason: string;
}

export interface Ipam {
  /** A pod's address on its node. Asking twice with the same handle gives the same address. */
  assign(req: IpamRequest): Result<number, IpamError>;
  /** Frees what a handle holds; false when it held nothing. */
  release(handle: string): boolean;
  /** The holder of an address, or undefined. */
  owner(address: number): string | undefined;
}

export function formatIpamError(e: IpamError): string {
  return `${e.subject}: ${e.reason}`;
}
