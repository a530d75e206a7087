// Public API of the lab layer: build an emulated cluster from loaded files and run a lab script
// of kubectl commands against it, printing what kubectl prints.
export { LabCluster, type LabClusterOptions, type SchedulerFactory } from "./cluster.js";
export { runLab, type LabOptions, type LabResult, type LabSink, type OutputLine, type StepRecord } from "./runner.js";
export { LabFiles, type FileReader } from "./files.js";
export { NOT_AVAILABLE, type CommandOutput, type ExecRequest, type LabExtensions, type LogsRequest, type TopRequest } from "./extensions.js";
export { parseScript, type ScriptError, type ScriptStep } from "./script.js";
export { parseGoDuration } from "./duration.js";
export { KUBECTL_VERBS } from "./kubectl/kubectl.js";
export { defaultScheduler } from "./default-scheduler.js";
export { createNetworkLab, networkExtensions, type NetworkLab, type NetworkLabOptions } from "./network.js";
