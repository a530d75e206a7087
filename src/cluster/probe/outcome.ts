// Probe outcomes: what one connection attempt came to, as `reach` prints it.

/** "connected" | "refused" (RST, SCTP ABORT or ICMP unreachable) | "timeout" | "dropped:<reason code>". */
export type ProbeOutcome = "connected" | "refused" | "timeout" | `dropped:${number}`;

/** Simulated time a probe waits for its handshake: 3 s (the SYN is retransmitted once, at 1 s). */
export const PROBE_TIMEOUT_NS = 3_000_000_000;

/** TCP: a handshake to a port; UDP: a datagram and its reply; SCTP: an association setup; ICMP: one echo request (port 0). */
export const PROBE_PROTOCOLS = ["TCP", "UDP", "SCTP", "ICMP"] as const;
export type ProbeProtocol = (typeof PROBE_PROTOCOLS)[number];
