// Request/response workloads: a netperf TCP_RR-like test and the percentile helper it reports with.
export { TcpRrTest, NETPERF_DATA_PORT, type TcpRrOptions, type TcpRrResult } from "./tcp-rr.js";
export { percentile } from "./percentile.js";
