// Public API of the Kubernetes object layer: loading YAML with positions and validation,
// the object store, the merged node view and the normalized cluster model.
export { loadFiles, loadText, type LoadedCluster, type LoadedObject, type LoadOptions, type LoadResult, type SourceRef } from "./load.js";
export { formatDiagnostic, Severity, type Diagnostic } from "./diagnostics.js";
export { ObjectStore, RESOURCE_NAMES, StoreErrorCode, type ListOptions, type StoreError, type StoreEvent, type StoreEventType, type StoreListener, type StoreOptions } from "./store.js";
export { storeFromLoad } from "./store-from-load.js";
export { buildClusterModel, nodeModel, type Allocatable, type ClusterModel, type NetworkModel, type NodeModel, type Prefix } from "./cluster-model.js";
export { clusterNodeObjects, mergeNode, mergeTaints, wellKnownNodeLabels, CONTROL_PLANE_LABEL, CONTROL_PLANE_TAINT, DEFAULT_ALLOCATABLE } from "./node-merge.js";
export { CLUSTER_API_VERSION, CNI_MODES, CNI_PLUGINS, type Cluster, type ClusterNodeSpec, type ClusterSpec, type CniPluginName, type Dataplane, type NodeRole } from "./cluster-types.js";
export { CLUSTER_DEFAULTS, parsePortRange } from "./cluster-defaults.js";
export {
  defaultImagePullPolicy,
  DEFAULT_NOT_READY_TOLERATION_SECONDS,
  defaultPod,
  defaultPodSpec,
  podQosClass,
  policyTypesGiven,
  SYSTEM_PRIORITY_CLASSES,
  type DefaultsWarning,
} from "./defaults.js";
export { requestedAddresses, CALICO_IP_ANNOTATION } from "./checks/objects.js";
export { BUILTIN_NAMESPACES } from "./cross-checks.js";
export { parseQuantity, quantityMilliValue, quantityValue, compareQuantities, QuantityFormat, type Quantity } from "./quantity.js";
export { parseBandwidth, parseDuration } from "./netunits.js";
export { KIND_NAMES, objectLabel, type KindMap, type KindName, type KubeObject } from "./types.js";
