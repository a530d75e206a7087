// One SCTP association attempt through the datapath in its own time window, as Linux's connect() on an
// SCTP socket makes it (RFC 4960 5.1): INIT, INIT ACK, COOKIE ECHO, COOKIE ACK = "connected" (then an
// ABORT releases the association, like the TCP probe's reset); an ABORT answer (no listener, RFC 4960
// 8.4 rule 3) or an ICMP error (protocol or port unreachable: Linux fails connect() with ECONNREFUSED /
// ENOPROTOOPT) = "refused"; a drop record of the attempt's packets = "dropped:<code>"; else "timeout".
// Linux's first INIT retransmission comes after RTO.Initial, 3 s: the 3 s window holds one INIT.
import type { ClusterRuntime } from "../runtime.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { SCTP_DEFAULTS, SctpHost, stateCookieOf, type SctpPacket } from "../workloads/sctp-endpoint.js";
import { IPPROTO_SCTP, sctpParam, SctpParamType } from "../../wire/sctp.js";
import { dropCollector } from "./drop-collector.js";
import { PROBE_TIMEOUT_NS, type ProbeOutcome } from "./outcome.js";
import type { ProbeResult } from "./tcp-probe.js";

const ICMP_DEST_UNREACH = 3;
/** Supported Address Types: IPv4 only (RFC 4960 3.3.2.1). */
const SUPPORTED_IPV4 = sctpParam(SctpParamType.SUPPORTED_ADDRESS_TYPES, Uint8Array.of(0, SctpParamType.IPV4_ADDRESS));

/** Associates from `src` with dst:port; runs the simulator until the attempt resolves or `timeoutNs` passed. */
export function probeSctp(rt: ClusterRuntime, src: NetNamespace, dst: number, port: number, timeoutNs = PROBE_TIMEOUT_NS): ProbeResult {
  rt.runUntilIdle();
  const host = SctpHost.of(src);
  if (!host.ok) return { outcome: "refused", drops: [], elapsedNs: 0, localPort: 0 };
  const sctp = host.value;
  const collector = dropCollector(rt);
  const mark = collector.mark();
  const tag = sctp.randomTag();
  const st: { v: "pending" | "connected" | "refused"; peerTag: number } = { v: "pending", peerTag: 0 };
  const onPacket = (p: SctpPacket): void => {
    const first = p.chunks[0];
    if (st.v !== "pending" || first === undefined) return;
    if (first.kind === "abort") {
      // Accept only an ABORT that proves it answers us: our tag, or the peer's when the T bit reflects it.
      if (p.verificationTag === (first.tBit ? st.peerTag : tag)) st.v = "refused";
      return;
    }
    if (p.verificationTag !== tag) return;
    if (first.kind === "init-ack") {
      const cookie = stateCookieOf(first.params);
      if (cookie === null) return;
      st.peerTag = first.initiateTag;
      sctp.send(p.dst, p.src, p.dstPort, p.srcPort, st.peerTag, [{ kind: "cookie-echo", cookie: cookie.slice() }]);
    } else if (first.kind === "cookie-ack") {
      st.v = "connected";
      sctp.send(p.dst, p.src, p.dstPort, p.srcPort, st.peerTag, [{ kind: "abort", tBit: false, causes: new Uint8Array(0) }]);
    }
  };
  const bound = sctp.bindEphemeral({
    packet: onPacket,
    icmpError: (e) => {
      if (st.v === "pending" && e.type === ICMP_DEST_UNREACH && e.dst === dst && e.dstPort === port) st.v = "refused";
    },
  });
  if (!bound.ok) return { outcome: "refused", drops: [], elapsedNs: 0, localPort: 0 };
  const localPort = bound.value;
  const start = rt.sim.now;
  const init = { kind: "init" as const, initiateTag: tag, aRwnd: SCTP_DEFAULTS.aRwnd, outboundStreams: SCTP_DEFAULTS.outboundStreams, inboundStreams: SCTP_DEFAULTS.inboundStreams, initialTsn: tag, params: SUPPORTED_IPV4 };
  if (!sctp.send(0, dst, localPort, port, 0, [init]).ok) st.v = "refused";
  const deadline = start + timeoutNs + 1;
  while (st.v === "pending" && rt.sim.pending > 0 && rt.sim.now <= deadline) rt.sim.step();
  const elapsedNs = rt.sim.now - start;
  rt.runUntilIdle();
  sctp.unbind(localPort);
  const drops = collector
    .since(mark)
    .filter((d) => (d.before.proto === IPPROTO_SCTP || d.after.proto === IPPROTO_SCTP) && [d.before.srcPort, d.before.dstPort, d.after.srcPort, d.after.dstPort].includes(localPort));
  const first = drops[0];
  // An ABORT is the far end's answer (it follows a NOT_LISTENING drop record there): it wins, as for TCP.
  const outcome: ProbeOutcome = st.v !== "pending" ? st.v : first !== undefined ? `dropped:${first.reason}` : "timeout";
  return { outcome, drops, elapsedNs, localPort };
}
