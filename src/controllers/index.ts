// Public API of the controllers layer: the controller manager and what the lab and CLI drive
// directly (cordon, drain, eviction, admission, template hashes, generated names, events).
export { ControllerManager, type ControllerManagerOptions, type PodScheduler } from "./manager.js";
export { DEFAULT_EPOCH_MS, NS_PER_SECOND, seconds, timeOfTimestamp, timestampAt, WallClock, type ControlClock } from "./clock.js";
export type { ControllerContext } from "./context.js";
export { admitPod, API_ACCESS_VOLUME_PREFIX, SERVICE_ACCOUNT_MOUNT_PATH } from "./admission.js";
export { setCordon, type CordonOutcome } from "./cordon.js";
export { DrainRun, DRAIN_MESSAGES, type DrainOptions, type DrainOutput, type DrainState } from "./drain.js";
export { computePdbStatus, evictPod, PDB_VIOLATION, type EvictionResult } from "./disruption.js";
export { deletePod } from "./pod-deletion.js";
export { EventRecorder, eventsFor, type EventSource, type EventType } from "./events.js";
export { NodeBlockAllocator, type PodIpAllocator } from "./ip-allocator.js";
export type { KubeletOptions } from "./kubelet.js";
export { POD_TEMPLATE_HASH_LABEL, REVISION_ANNOTATION, resolveFenceposts } from "./deployment.js";
export { daemonPodTolerations, nodeNameAffinity } from "./daemonset.js";
export { minTolerationSeconds } from "./taint-eviction.js";
export { UNSCHEDULABLE_TAINT } from "./node-lifecycle.js";
export { generateName, randomString } from "./names.js";
export { controllerOf, isPodReady, isTerminating, podKey, stableJson } from "./objects.js";
export { computeTemplateHash, safeEncodeString, SAFE_ALPHANUMS, type TemplateHash } from "./template-hash/compute-hash.js";
