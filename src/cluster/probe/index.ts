// Public API of connection probes: TCP, UDP, SCTP and ICMP attempts through the datapath, server listeners, outcomes.
export { probeTcp, type ProbeResult } from "./tcp-probe.js";
export { probeIcmp } from "./icmp-probe.js";
export { probeUdp } from "./udp-probe.js";
export { probeSctp } from "./sctp-probe.js";
export { listenInPod } from "./exec-listeners.js";
export { openServerListeners, servedTcpPorts, servedUdpPorts } from "./servers.js";
export { PROBE_TIMEOUT_NS, PROBE_PROTOCOLS, type ProbeOutcome, type ProbeProtocol } from "./outcome.js";
export { dropCollector, type DropCollector } from "./drop-collector.js";
