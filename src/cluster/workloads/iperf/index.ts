// iperf3-like throughput workloads: TCP (-P streams, receiver-side rate, retransmits) and UDP (target
// or unlimited rate, loss and RFC 1889 jitter), with the CPU gates the performance runner drives.
export { IperfTcpTest, IPERF_PORT, type IperfTcpOptions, type IperfTcpResult, type IperfTcpStreamResult } from "./tcp.js";
export { IperfUdpTest, UDP_RMEM_DEFAULT, UDP_TAIL_NS, type IperfUdpOptions, type IperfUdpResult } from "./udp.js";
export { JitterEstimator } from "./jitter.js";
export { OPEN_GATE, type AppGate } from "./gate.js";
export { defaultOmitNs, measureWindow, type MeasureWindow } from "./timing.js";
