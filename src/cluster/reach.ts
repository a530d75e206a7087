// The reachability matrix: for each probed port, one real connection attempt from every source to every
// destination through the datapath (TCP handshake, UDP datagram and reply, SCTP association setup, or ICMP echo), each in its own time window; connected,
// refused, dropped or timed out.
import type { ClusterRuntime } from "./runtime.js";
import { openServerListeners } from "./probe/servers.js";
import { openSctpListeners } from "./probe/sctp-servers.js";
import { probeTcp } from "./probe/tcp-probe.js";
import { probeIcmp } from "./probe/icmp-probe.js";
import { probeUdp } from "./probe/udp-probe.js";
import { probeSctp } from "./probe/sctp-probe.js";
import { PROBE_PROTOCOLS, PROBE_TIMEOUT_NS, type ProbeOutcome, type ProbeProtocol } from "./probe/outcome.js";
import type { ProbeEndpoint } from "./probe/endpoints.js";
import { err, ok, type Result } from "../util/result.js";

export interface ReachPort {
  readonly port: number;
  readonly protocol: ProbeProtocol;
}

export interface ReachProbe {
  readonly port: number;
  readonly protocol: ProbeProtocol;
  readonly from: string[];
  readonly to: string[];
  readonly allowed: boolean[][];
  readonly outcome: ProbeOutcome[][];
}

export interface ReachResult {
  readonly probes: ReachProbe[];
}

/** "80", "80/TCP", "80/tcp" -> {port, protocol}; "ICMP" -> an echo probe (port 0); others are named in the error. */
export function parseReachPort(text: string): Result<ReachPort, string> {
  if (/^(0\/)?icmp$/i.test(text.trim())) return ok({ port: 0, protocol: "ICMP" });
  const m = /^(\d{1,5})(?:\/([A-Za-z]+))?$/.exec(text.trim());
  const port = m === null ? NaN : Number(m[1]);
  if (m === null || !(port >= 1 && port <= 65535)) return err(`--port "${text}": expected PORT[/PROTOCOL] with PORT 1-65535`);
  const protocol = (m[2] ?? "TCP").toUpperCase();
  if (protocol !== "TCP" && protocol !== "UDP" && protocol !== "SCTP") return err(`--port "${text}": protocol ${protocol} is not probed yet (supported: ${PROBE_PROTOCOLS.join(", ")}; ICMP without a port)`);
  return ok({ port, protocol: protocol as ProbeProtocol });
}

/** Runs every probe; pods listen on the ports they serve while it runs. */
export function reach(rt: ClusterRuntime, from: readonly ProbeEndpoint[], to: readonly ProbeEndpoint[], ports: readonly ReachPort[], timeoutNs = PROBE_TIMEOUT_NS): ReachResult {
  const close = openServerListeners(rt);
  const closeSctp = openSctpListeners(rt);
  const probes = ports.map((p) => {
    const outcome = from.map((src) =>
      to.map((dst) => {
        if (src.ns === null) return "refused" as const;
        return p.protocol === "ICMP"
          ? probeIcmp(rt, src.ns, dst.addr, timeoutNs).outcome
          : p.protocol === "UDP"
            ? probeUdp(rt, src.ns, dst.addr, p.port, timeoutNs).outcome
            : p.protocol === "SCTP"
              ? probeSctp(rt, src.ns, dst.addr, p.port, timeoutNs).outcome
              : probeTcp(rt, src.ns, dst.addr, p.port, timeoutNs).outcome;
      }),
    );
    return {
      port: p.port,
      protocol: p.protocol,
      from: from.map((e) => e.label),
      to: to.map((e) => e.label),
      allowed: outcome.map((row) => row.map((o) => o === "connected")),
      outcome,
    };
  });
  close();
  closeSctp();
  rt.runUntilIdle();
  return { probes };
}
