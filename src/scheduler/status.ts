// Plugin results as the scheduling framework reports them (framework.Status): a code, the reasons
// (the strings FailedScheduling messages count) and the plugin that produced them.

export const Code = {
  SUCCESS: "Success",
  ERROR: "Error",
  /** The node does not fit now, but preemption might make it fit. */
  UNSCHEDULABLE: "Unschedulable",
  /** The node does not fit and preemption cannot change that. */
  UNSCHEDULABLE_AND_UNRESOLVABLE: "UnschedulableAndUnresolvable",
  /** The plugin has nothing to do for this pod; its later phases are skipped. */
  SKIP: "Skip",
} as const;
export type Code = (typeof Code)[keyof typeof Code];

export interface Status {
  readonly code: Code;
  readonly reasons: readonly string[];
  /** The plugin that returned the status ("" when the framework itself did). */
  readonly plugin: string;
}

export function status(code: Code, plugin: string, ...reasons: string[]): Status {
  return { code, reasons, plugin };
}

export const unschedulable = (plugin: string, ...reasons: string[]): Status => status(Code.UNSCHEDULABLE, plugin, ...reasons);
export const unresolvable = (plugin: string, ...reasons: string[]): Status => status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, plugin, ...reasons);
export const SKIP_STATUS: Status = { code: Code.SKIP, reasons: [], plugin: "" };

/** Rejected: Unschedulable or UnschedulableAndUnresolvable. */
export function isRejected(s: Status): boolean {
  return s.code === Code.UNSCHEDULABLE || s.code === Code.UNSCHEDULABLE_AND_UNRESOLVABLE;
}

/** The status message: reasons joined with ", " (Status.Message()). */
export function statusMessage(s: Status): string {
  return s.reasons.join(", ");
}
