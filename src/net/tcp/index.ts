// Public surface of the namespace TCP: the stack (listen/connect), sockets and their events,
// errors, sysctls, counters and the cost-observer seam for the metrics layer; F64_ZERO for the
// applications' own counters that grow past the small-integer range.

export { TcpStack, type TcpConnectOptions } from "./stack.js";
export { TcpListener, type TcpListenOptions } from "./listener.js";
export { TcpSocket, type TcpEvents, type TcpSocketOptions, type TcpSocketStats } from "./socket.js";
export { TcpState, TcpError, CaState, type TcpErrorInfo } from "./states.js";
export { CongestionName, GRO_TYPICAL_FLUSH_NS, defaultTcpSysctl, type TcpSysctl } from "./sysctl.js";
export { TcpCounters, type TcpCostObserver } from "./counters.js";
export { IcmpMux, IcmpKind, type IcmpErrorInfo, type EchoReplyHandler, type EchoErrorHandler } from "./icmp-mux.js";
export { Cubic, Reno, type CongestionControl } from "./cc/index.js";
export { modelTimeout } from "./timers.js";
export { F64_ZERO } from "./constants.js";
