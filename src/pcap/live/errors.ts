// LiveError: why a live capture/injection interface could not be used (module, library, privilege,
// interface, filter), with the interface it concerns and a hint saying how to fix it.

export const LiveErrorKind = {
  /** The optional `cap` package is not installed (or failed to build). */
  MODULE_MISSING: "module-missing",
  /** `cap` is there but libpcap's shared library is not. */
  LIBPCAP_MISSING: "libpcap-missing",
  /** Capturing needs root or CAP_NET_RAW (+ CAP_NET_ADMIN for promiscuous mode). */
  NO_PRIVILEGE: "no-privilege",
  /** No interface of that name in the network namespace the process runs in. */
  NO_SUCH_INTERFACE: "no-such-interface",
  /** libpcap rejected the BPF filter expression. */
  BAD_FILTER: "bad-filter",
  /** The interface's link type is not Ethernet. */
  UNSUPPORTED_LINK: "unsupported-link",
  /** Any other failure to open. */
  OPEN_FAILED: "open-failed",
} as const;
export type LiveErrorKind = (typeof LiveErrorKind)[keyof typeof LiveErrorKind];

export interface LiveError {
  readonly kind: LiveErrorKind;
  /** The interface concerned ("" when the failure is not about one interface). */
  readonly iface: string;
  /** What went wrong, as libpcap or Node reported it. */
  readonly detail: string;
  /** How to fix it. */
  readonly hint: string;
}

export function liveError(kind: LiveErrorKind, iface: string, detail: string, hint: string): LiveError {
  return { kind, iface, detail, hint };
}

/** One line for a terminal: `live capture on IFACE: detail (hint)`. */
export function formatLiveError(e: LiveError): string {
  const where = e.iface === "" ? "live capture" : `live capture on ${e.iface}`;
  return `${where}: ${e.detail}${e.hint === "" ? "" : ` (${e.hint})`}`;
}
