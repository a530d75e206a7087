// Public surface of kube-proxy (iptables mode) and the API-server pieces it depends on: Service
// address allocation, the endpoints / EndpointSlice controllers, the ruleset generator and loader.
export { KubeProxy, type KubeProxyError, type KubeProxyOptions, type SyncReport } from "./kube-proxy.js";
export { proxierConfig, type ProxierConfig, type ProxierConfigInput } from "./config.js";
export { servicePorts, servicePortKey, externallyAccessible, usesClusterEndpoints, usesLocalEndpoints, type L4Protocol, type ServicePortInfo, type ServicePortsResult } from "./service-port.js";
export { buildEndpointsMap, SERVICE_NAME_LABEL, type EndpointInfo, type EndpointsMap } from "./endpoint-info.js";
export { categorizeEndpoints, type CategorizedEndpoints } from "./categorize.js";
export { buildRuleset, LARGE_CLUSTER_ENDPOINTS, type Ruleset, type RulesetInput } from "./iptables/ruleset.js";
export { ensureJumpChains, JUMP_CHAINS, natChainNames, restoreRuleset, type LoadError } from "./iptables/load.js";
export { chainHash, endpointChainName, isServiceChainName, KubeChain, serviceChainNames, servicePortNameString, type ServiceChainNames } from "./iptables/chain-names.js";
export { computeProbability, formatFixedGo } from "./iptables/probability.js";
export { EndpointsController, type EndpointSliceSource, type EndpointsControllerOptions } from "./endpoints/controller.js";
export { deriveEndpoints, type DerivedEndpoints } from "./endpoints/derive-endpoints.js";
export { deriveEndpointSlices, mirrorEndpointSlices, MAX_ENDPOINTS_PER_SLICE, type DerivedSlices } from "./endpoints/derive-slices.js";
export { findPodPort } from "./endpoints/pod-port.js";
export { isPodReady, shouldPodBeInEndpoints } from "./endpoints/pod-state.js";
export { ServiceAllocator, type ServiceAllocationError, type ServiceAllocatorSettings } from "./allocator/service-allocator.js";
export { ClusterIpAllocator, IpAllocError } from "./allocator/cluster-ip.js";
export { NodePortAllocator, PortAllocError } from "./allocator/node-port.js";
export { OffsetBitmap, rangeOffset } from "./allocator/offset-bitmap.js";
export { canonicalIPv4, parseCidrSloppy, parseIPv4Sloppy } from "./ip-text.js";
