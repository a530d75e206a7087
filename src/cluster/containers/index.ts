// Pod containers: image recognition, per-container files (with ConfigMap volumes), the servers every
// pod runs on its declared ports, and the runtime's per-pod manager (`ClusterRuntime.workloads`).
export { ImageKind, imageKind, imageLibc, imageName } from "./image.js";
export { ContainerFiles, normalizePath, type FileError, type Mount } from "./files.js";
export { servedPorts, PortProtocol, type ServedPort } from "./ports.js";
export { PodServers, NGINX_ROOT } from "./pod-servers.js";
export { PodWorkloads, type WiredPod } from "./workloads.js";
export { storeDnsData } from "./dns-data.js";
export { configMapFiles, mountVolumes } from "./volumes.js";
