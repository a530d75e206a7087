// One TCP connection attempt through the datapath in its own time window: the outcome, and the drop
// records of the attempt's packets (matched by protocol and the client's ephemeral port).
import type { ClusterRuntime } from "../runtime.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { TcpStack } from "../../net/tcp/stack.js";
import { TcpError } from "../../net/tcp/states.js";
import type { DropRecord } from "../../trace/records.js";
import { dropCollector } from "./drop-collector.js";
import { PROBE_TIMEOUT_NS, type ProbeOutcome } from "./outcome.js";

export interface ProbeResult {
  readonly outcome: ProbeOutcome;
  /** Drop records of this attempt's packets, in order. */
  readonly drops: readonly DropRecord[];
  /** Simulated time from the SYN to the resolution. */
  readonly elapsedNs: number;
  /** The client's ephemeral port (0 when the socket could not be opened). */
  readonly localPort: number;
}

const IPPROTO_TCP = 6;

/** Connects from `src` to dst:port; runs the simulator until the attempt resolves or `timeoutNs` passed. */
export function probeTcp(rt: ClusterRuntime, src: NetNamespace, dst: number, port: number, timeoutNs = PROBE_TIMEOUT_NS): ProbeResult {
  rt.runUntilIdle();
  const collector = dropCollector(rt);
  const mark = collector.mark();
  const start = rt.sim.now;
  const st: { v: "pending" | "connected" | "refused" | "timeout" } = { v: "pending" };
  const sock = TcpStack.of(src).connect(
    dst,
    port,
    {
      onConnect: () => void (st.v = "connected"),
      onClose: (_s, e) => {
        if (st.v !== "pending") return;
        st.v = e !== null && (e.kind === TcpError.REFUSED || e.kind === TcpError.UNREACHABLE) ? "refused" : "timeout";
      },
    },
    { timeoutNs },
  );
  if (!sock.ok) return { outcome: "refused", drops: [], elapsedNs: 0, localPort: 0 };
  const deadline = start + timeoutNs + 1;
  while (st.v === "pending" && rt.sim.pending > 0 && rt.sim.now <= deadline) rt.sim.step();
  const elapsedNs = rt.sim.now - start;
  const localPort = sock.value.localPort;
  if (st.v === "connected") sock.value.abort();
  else if (st.v === "pending") {
    sock.value.abort();
    st.v = "timeout";
  }
  const drops = collector.since(mark).filter((d) => ofAttempt(d, localPort));
  rt.runUntilIdle();
  const first = drops[0];
  // A refusal is an answer from the far end (its RST may follow a NOT_LISTENING drop record): it wins.
  const outcome: ProbeOutcome = st.v === "connected" || st.v === "refused" ? st.v : first !== undefined ? `dropped:${first.reason}` : "timeout";
  return { outcome, drops, elapsedNs, localPort };
}

function ofAttempt(d: DropRecord, localPort: number): boolean {
  if (d.before.proto !== IPPROTO_TCP && d.after.proto !== IPPROTO_TCP) return false;
  return [d.before.srcPort, d.before.dstPort, d.after.srcPort, d.after.dstPort].includes(localPort);
}
