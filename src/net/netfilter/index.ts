// Public surface of the netfilter model: hooks and verdicts, the Netfilter class, conntrack,
// rule specs and their helpers.

export { NfHook, NfVerdict, NF_HOOK_NAMES, NfPriority, BUILTIN_CHAINS, type NfTableName } from "./hooks.js";
export { CtState, CtMatchState, ctStateName, type CtMatchStateName } from "./ct-state.js";
export type { NetfilterHost } from "./host.js";
export { Netfilter, type ConntrackMode, type NetfilterOptions } from "./netfilter.js";
export { Conntrack, type ConntrackStats } from "./conntrack/conntrack.js";
export { DEFAULT_CONNTRACK_CONFIG, DEFAULT_CT_TIMEOUTS, type ConntrackConfig, type CtTimeouts } from "./conntrack/timeouts.js";
export { formatConntrackEntry, type CtEntryInfo, type CtTupleInfo } from "./conntrack/listing.js";
export { TCP_STATE_NAMES, TcpCt } from "./conntrack/tcp-states.js";
export { NfTable, NfChain, type ChainPolicy, type NfCommitError } from "./table/table.js";
export { NfRule } from "./table/rule.js";
export {
  markTarget,
  ProgramVerdict,
  type NfRuleSpec,
  type NfTargetSpec,
  type NfError,
  type NfProgramFn,
  type ProgramDrop,
  type RejectWith,
} from "./table/spec.js";
export { buildIcmpError, buildTcpReset } from "./reject.js";
export { parseRuleArgs, splitWords } from "./table/iptables-text.js";
export { iptablesRestore, type RestoreError, type RestoreOptions } from "./table/restore.js";
export { formatRuleArgs, formatTableSave, storedProbability } from "./table/format.js";
