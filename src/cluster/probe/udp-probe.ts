// One UDP datagram and its reply through the datapath in its own time window: a reply is "connected",
// an ICMP error (port unreachable, prohibited) "refused", a drop record of the datagram "dropped:<code>".
import type { ClusterRuntime } from "../runtime.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { UdpSocket } from "../../net/udp-socket.js";
import { dropCollector } from "./drop-collector.js";
import { PROBE_TIMEOUT_NS, type ProbeOutcome } from "./outcome.js";
import type { ProbeResult } from "./tcp-probe.js";

const IPPROTO_UDP = 17;
const PAYLOAD = new TextEncoder().encode("cnisim reach probe\n");

/** Sends one datagram from `src` to dst:port; runs until a reply or error arrived or `timeoutNs` passed. */
export function probeUdp(rt: ClusterRuntime, src: NetNamespace, dst: number, port: number, timeoutNs = PROBE_TIMEOUT_NS): ProbeResult {
  rt.runUntilIdle();
  const collector = dropCollector(rt);
  const mark = collector.mark();
  const st: { v: "pending" | "connected" | "refused" } = { v: "pending" };
  const sock = UdpSocket.bind(src, 0, {
    onMessage: () => void (st.v = st.v === "pending" ? "connected" : st.v),
    onError: () => void (st.v = st.v === "pending" ? "refused" : st.v),
  });
  if (!sock.ok) return { outcome: "refused", drops: [], elapsedNs: 0, localPort: 0 };
  const start = rt.sim.now;
  const sent = sock.value.send(dst, port, PAYLOAD);
  if (!sent.ok) st.v = "refused";
  const deadline = start + timeoutNs + 1;
  while (st.v === "pending" && rt.sim.pending > 0 && rt.sim.now <= deadline) rt.sim.step();
  const elapsedNs = rt.sim.now - start;
  const localPort = sock.value.port;
  sock.value.close();
  const drops = collector
    .since(mark)
    .filter((d) => (d.before.proto === IPPROTO_UDP || d.after.proto === IPPROTO_UDP) && [d.before.srcPort, d.before.dstPort, d.after.srcPort, d.after.dstPort].includes(localPort));
  rt.runUntilIdle();
  const first = drops[0];
  const outcome: ProbeOutcome = st.v !== "pending" ? st.v : first !== undefined ? `dropped:${first.reason}` : "timeout";
  return { outcome, drops, elapsedNs, localPort };
}
