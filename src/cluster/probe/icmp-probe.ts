// One ICMP echo (a single ping) through the datapath in its own time window: a reply is "connected",
// an ICMP error (unreachable, prohibited) "refused", a drop record of the echo "dropped:<code>".
import type { ClusterRuntime } from "../runtime.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { IcmpMux } from "../../net/tcp/icmp-mux.js";
import { Ping, type PingResult } from "../workloads/ping.js";
import { dropCollector } from "./drop-collector.js";
import { PROBE_TIMEOUT_NS, type ProbeOutcome } from "./outcome.js";
import type { ProbeResult } from "./tcp-probe.js";

const IPPROTO_ICMP = 1;
/** Echo identifiers used by probes: a fixed base so runs are reproducible, skipping ids in use. */
const PROBE_ECHO_ID = 0x7e00;

/** Pings dst once from `src`; runs the simulator until the reply or error arrived or `timeoutNs` passed. */
export function probeIcmp(rt: ClusterRuntime, src: NetNamespace, dst: number, timeoutNs = PROBE_TIMEOUT_NS): ProbeResult {
  rt.runUntilIdle();
  const collector = dropCollector(rt);
  const mark = collector.mark();
  const mux = IcmpMux.of(src);
  let id = PROBE_ECHO_ID;
  while (mux.echoIdInUse(id)) id = (id + 1) & 0xffff;
  const start = rt.sim.now;
  const done: { result: PingResult | null } = { result: null };
  const ping = new Ping(src, dst, { count: 1, id, lingerNs: timeoutNs }, (r) => (done.result = r));
  ping.start();
  const deadline = start + timeoutNs + 1;
  while (done.result === null && rt.sim.pending > 0 && rt.sim.now <= deadline) rt.sim.step();
  const elapsedNs = rt.sim.now - start;
  if (done.result === null) ping.stop();
  const r = done.result;
  // Echo requests and replies carry the identifier where ports would be (trace tuples).
  const drops = collector.since(mark).filter((d) => (d.before.proto === IPPROTO_ICMP || d.after.proto === IPPROTO_ICMP) && (d.before.srcPort === id || d.after.srcPort === id));
  rt.runUntilIdle();
  const first = drops[0];
  const outcome: ProbeOutcome =
    r !== null && r.received > 0 ? "connected" : r !== null && r.errors > 0 ? "refused" : first !== undefined ? `dropped:${first.reason}` : "timeout";
  return { outcome, drops, elapsedNs, localPort: id };
}
