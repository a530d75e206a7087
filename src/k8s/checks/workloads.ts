// Rules of Deployment, ReplicaSet and DaemonSet: a non-empty selector that matches the
// template's labels, restartPolicy Always, rolling-update budgets, and the template's PodSpec.
import type { DaemonSet, Deployment, ReplicaSet } from "kubernetes-types/apps/v1.js";
import type { PodTemplateSpec } from "kubernetes-types/core/v1.js";
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { p, type CheckContext } from "./context.js";
import { checkPodSpec } from "./podspec.js";
import { compileSelector } from "../selector.js";
import { checkLabelSelector, isEmptySelector } from "./selectors.js";

type IntOrString = number | string;

function checkSelectorAndTemplate(
  what: string,
  selector: LabelSelector | undefined,
  template: PodTemplateSpec | undefined,
  ctx: CheckContext,
): void {
  checkLabelSelector(selector, "spec.selector", ctx);
  if (selector !== undefined && isEmptySelector(selector) && !ctx.hasErrorsUnder("spec.selector")) {
    ctx.error("spec.selector", `empty selector is invalid for ${what}`);
  }
  if (template === undefined) return;
  const labels = template.metadata?.labels ?? {};
  const labelsPath = "spec.template.metadata.labels";
  if (
    selector !== undefined &&
    !isEmptySelector(selector) &&
    !ctx.hasErrorsUnder("spec.selector") &&
    !ctx.hasErrorsUnder(labelsPath) &&
    !compileSelector(selector).matches(labels)
  ) {
    ctx.error(labelsPath, "`selector` does not match template `labels`");
  }
  const restart = template.spec?.restartPolicy;
  if (restart !== undefined && restart !== "Always") ctx.error("spec.template.spec.restartPolicy", "must be one of Always");
  checkPodSpec(template.spec, "spec.template.spec", ctx, { template: true });
}

const isZero = (v: IntOrString | undefined): boolean => v === 0 || v === "0%";
const percentOver100 = (v: IntOrString | undefined): boolean => typeof v === "string" && Number(v.slice(0, -1)) > 100;

function checkBudget(surge: IntOrString | undefined, unavailable: IntOrString | undefined, base: string, ctx: CheckContext): void {
  if (percentOver100(unavailable)) ctx.error(p.field(base, "maxUnavailable"), "must not be greater than 100%");
  if (isZero(unavailable) && isZero(surge)) ctx.error(p.field(base, "maxUnavailable"), "may not be 0 when `maxSurge` is 0");
}

export function checkDeployment(d: Deployment, ctx: CheckContext): void {
  checkSelectorAndTemplate("deployment", d.spec?.selector, d.spec?.template, ctx);
  const strategy = d.spec?.strategy;
  if (strategy?.rollingUpdate !== undefined) {
    if (strategy.type === "Recreate") ctx.error("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'");
    else {
      const ru = strategy.rollingUpdate;
      // Upstream's defaults (25%) apply to the side that is not given.
      checkBudget(ru.maxSurge ?? "25%", ru.maxUnavailable ?? "25%", "spec.strategy.rollingUpdate", ctx);
    }
  }
  const pds = d.spec?.progressDeadlineSeconds;
  if (pds !== undefined && pds <= (d.spec?.minReadySeconds ?? 0)) ctx.error("spec.progressDeadlineSeconds", "must be greater than minReadySeconds");
}

export function checkReplicaSet(rs: ReplicaSet, ctx: CheckContext): void {
  if (rs.spec?.template === undefined && (rs.spec?.replicas ?? 1) > 0) ctx.error("spec.template", "required value");
  checkSelectorAndTemplate("replicaset", rs.spec?.selector, rs.spec?.template, ctx);
}

export function checkDaemonSet(ds: DaemonSet, ctx: CheckContext): void {
  checkSelectorAndTemplate("daemonset", ds.spec?.selector, ds.spec?.template, ctx);
  const us = ds.spec?.updateStrategy;
  if (us?.rollingUpdate !== undefined) {
    if (us.type === "OnDelete") ctx.error("spec.updateStrategy.rollingUpdate", "may not be specified when strategy `type` is 'OnDelete'");
    else checkBudget(us.rollingUpdate.maxSurge ?? 0, us.rollingUpdate.maxUnavailable ?? 1, "spec.updateStrategy.rollingUpdate", ctx);
  }
}
