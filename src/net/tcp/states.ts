// Connection states (RFC 9293 3.3.2), congestion-avoidance states (Linux tcp_ca_state) and the
// errors a connection can end with, with the errno a Linux application would see.

export const TcpState = {
  CLOSED: "CLOSED",
  LISTEN: "LISTEN",
  SYN_SENT: "SYN-SENT",
  SYN_RECEIVED: "SYN-RECEIVED",
  ESTABLISHED: "ESTABLISHED",
  FIN_WAIT_1: "FIN-WAIT-1",
  FIN_WAIT_2: "FIN-WAIT-2",
  CLOSING: "CLOSING",
  TIME_WAIT: "TIME-WAIT",
  CLOSE_WAIT: "CLOSE-WAIT",
  LAST_ACK: "LAST-ACK",
} as const;
export type TcpState = (typeof TcpState)[keyof typeof TcpState];

export const CaState = { OPEN: 0, DISORDER: 1, RECOVERY: 3, LOSS: 4 } as const;
export type CaState = (typeof CaState)[keyof typeof CaState];

export const TcpError = {
  /** A reset answered the SYN, or ICMP port unreachable (ECONNREFUSED). */
  REFUSED: "refused",
  /** No answer before the retries ran out or the caller's timeout passed (ETIMEDOUT). */
  TIMEOUT: "timeout",
  /** The peer reset an established connection (ECONNRESET). */
  RESET: "reset",
  /** ICMP host/network unreachable or administratively prohibited (EHOSTUNREACH / ENETUNREACH). */
  UNREACHABLE: "unreachable",
  /** The local application aborted the connection. */
  ABORTED: "aborted",
} as const;
export type TcpError = (typeof TcpError)[keyof typeof TcpError];

export interface TcpErrorInfo {
  readonly kind: TcpError;
  /** The errno name a Linux application would get. */
  readonly errno: string;
  readonly detail: string;
}

export function tcpError(kind: TcpError, errno: string, detail: string): TcpErrorInfo {
  return { kind, errno, detail };
}
