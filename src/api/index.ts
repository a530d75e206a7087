// Public API of the api layer: the read-only Kubernetes API server (discovery, core/apps/networking
// resources, metrics.k8s.io, /metrics) over an ApiBackend, and the driver that keeps time running.
export { ApiServer, DEFAULT_ADDRESS, type ApiServerOptions } from "./server.js";
export { emulationBackend, labBackend, type ApiBackend, type LabBackend, type LabBackendOptions } from "./backend.js";
export { handleRequest, type ApiRequest, type ApiResponse } from "./handler.js";
export { LiveDriver } from "./driver.js";
export { ApiError, StatusReason, type StatusBody } from "./status.js";
export { emulationFromLoad, openEmulation, type Emulation, type EmulationOptions } from "./emulation.js";
export { parseLabelSelector } from "./selectors.js";
export { meteredEmulation, meteredLab, topOutput, type MeteredLab, type TopContext, type TopQuery } from "./top-command.js";
export { clusterMetering, datapathMapsOf, runtimeRequestCounter, type RequestCounter } from "./cluster-metering.js";
export { formatTrafficSpecError, parseTrafficSpec, FlowKind, type FlowSpec, type TrafficSpecError } from "./traffic/spec.js";
export { TrafficDriver, type FlowStats } from "./traffic/driver.js";
