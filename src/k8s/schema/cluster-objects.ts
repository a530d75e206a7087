// Shapes of Namespace, Node (core/v1), PodDisruptionBudget (policy/v1) and Event (core/v1).
import { checkLabelValue, checkQualifiedName } from "../names.js";
import { labelSelector, objectMeta, objectReference, stringList, typeMeta } from "./meta.js";
import { TAINT_EFFECTS } from "./pod.js";
import { resourceNameCheck } from "./resources.js";
import { bool, int, list, map, obj, oneOf, opaque, opaqueList, quantity, str } from "./shape.js";
import { intOrPercent } from "./workloads.js";

export const namespaceShape = obj({ ...typeMeta, metadata: objectMeta, spec: obj({ finalizers: stringList }), status: opaque });

export const taint = obj(
  { key: str(checkQualifiedName), value: str(checkLabelValue), effect: oneOf(...TAINT_EFFECTS), timeAdded: str() },
  ["key", "effect"],
);

export const nodeResourceList = map(quantity, resourceNameCheck("node"));

const nodeAddress = obj(
  {
    type: oneOf("Hostname", "InternalIP", "ExternalIP", "InternalDNS", "ExternalDNS"),
    address: str(),
  },
  ["type", "address"],
);

export const nodeShape = obj({
  ...typeMeta,
  metadata: objectMeta,
  spec: obj({
    podCIDR: str(),
    podCIDRs: stringList,
    providerID: str(),
    unschedulable: bool,
    taints: list(taint),
    configSource: opaque,
    externalID: str(),
  }),
  status: obj({
    capacity: nodeResourceList,
    allocatable: nodeResourceList,
    addresses: list(nodeAddress),
    phase: str(),
    conditions: opaqueList,
    daemonEndpoints: opaque,
    nodeInfo: opaque,
    images: opaqueList,
    volumesInUse: opaqueList,
    volumesAttached: opaqueList,
    config: opaque,
    runtimeHandlers: opaqueList,
  }),
});

export const podDisruptionBudgetShape = obj({
  ...typeMeta,
  metadata: objectMeta,
  spec: obj({
    minAvailable: intOrPercent,
    maxUnavailable: intOrPercent,
    selector: labelSelector,
    unhealthyPodEvictionPolicy: oneOf("IfHealthyBudget", "AlwaysAllow"),
  }),
  status: opaque,
});

export const eventShape = obj(
  {
    ...typeMeta,
    metadata: objectMeta,
    involvedObject: objectReference,
    reason: str(),
    message: str(),
    source: obj({ component: str(), host: str() }),
    firstTimestamp: str(),
    lastTimestamp: str(),
    eventTime: str(),
    count: int(0),
    type: oneOf("Normal", "Warning"),
    series: opaque,
    action: str(),
    related: objectReference,
    reportingComponent: str(),
    reportingInstance: str(),
  },
  ["involvedObject"],
);
