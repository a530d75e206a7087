// Public surface of the namespace host stack (what devices, CNIs, workloads and tests import).

export { NetNamespace, type NetNamespaceOptions } from "./namespace.js";
export { AddrScope, type InterfaceAddress } from "./addresses.js";
export { RouteType, formatRoute, type Route, type RouteSpec, type RouteSelector, type RouteTableName } from "./route-table.js";
export { Nud, NeighUpdate, nudStateName, type NeighbourEntry } from "./neighbour.js";
export { NEIGH_DEFAULTS, type NeighParms } from "./neigh-parms.js";
export { SocketMode, type SocketHandler, type SocketInfo, type ProtocolHandler } from "./sockets.js";
export { type StackSysctl } from "./sysctl.js";
export { type StackConfigError, formatConfigError } from "./errors.js";
export { IcmpType, UnreachCode, TimeExceededCode } from "./icmp-send.js";
export { LoopbackDevice } from "./loopback.js";
export { StackCounters } from "./counters.js";
