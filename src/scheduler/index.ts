// Public API of the scheduler layer: the Scheduler (kube-scheduler 1.30's default profile over the
// object store), scheduling profiles from KubeSchedulerConfiguration files, and the result shape.
export { Scheduler, type SchedulerOptions } from "./scheduler.js";
export type { FilterOutcome, NodeScore, ScheduleResult } from "./result.js";
export { defaultConfiguration, defaultProfile, DEFAULT_SCHEDULER_NAME, type SchedulerConfiguration, type SchedulerProfile } from "./config/profile.js";
export { loadSchedulerConfiguration, loadSchedulerProfile } from "./config/load.js";
export { DEFAULT_KUBE_VERSION, formatKubeVersion, hidesTaintInReason, parseKubeVersion, type KubeVersion } from "./version.js";
export { fitErrorMessage } from "./fit-error.js";
export { SCHEDULER_COMPONENT, type EventClock } from "./events.js";
export { toleratesTaint, tolerationsTolerateTaint, findUntoleratedTaint } from "./taints.js";
export { requiredNodeAffinity } from "./node-selector.js";
export { PluginName } from "./plugins/names.js";
export { finalResults, jsonReport, textReport } from "./report.js";
