// The one way a program drops: sets the verdict and emits exactly one drop event carrying the reason,
// the literal site, identities, the tuple before and after translation and, for policy drops, the
// reference the control plane turns into an explanation.
import { EventKind, Verdict, type DatapathCtx } from "../ctx.js";
import { fillEvent } from "./trace.js";

/**
 * Ends the run with a drop. `site` names the program exit; an inner function that returned `reason`
 * may have recorded a more precise site in ctx.site, which wins.
 */
export function dropPacket(ctx: DatapathCtx, reason: number, site: string): Verdict {
  ctx.verdict = Verdict.DROP;
  ctx.dropReason = reason;
  if (ctx.site === "") ctx.site = site;
  fillEvent(ctx, EventKind.DROP);
  const ev = ctx.event;
  ev.reason = reason;
  ev.site = ctx.site;
  ev.policy = ctx.hasPolicyRef ? ctx.policyRef : null;
  ctx.emit(ev);
  return Verdict.DROP;
}
