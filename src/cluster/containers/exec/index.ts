// `kubectl exec` in an emulated pod: a small shell and the tools the lab's images ship.
export { execInPod, type ExecOutput } from "./exec.js";
export { parseCommandList, type ParsedList, type SimpleCommand } from "./shell-words.js";
export { wgetProgressLine } from "./http-tools.js";
export { parseExecSpec, splitWords, type ExecSpec } from "./exec-spec.js";
