// Deleting a pod as the API server does: a pod not yet on a node goes at once; a bound pod is
// marked (deletionTimestamp = now + grace period) and the kubelet removes it once its containers
// have stopped. A grace period of 0 ("--force --grace-period=0") removes it at once.
import { ok, type Result } from "../util/result.js";
import type { StoreError } from "../k8s/index.js";
import { NS_PER_SECOND, timestampAt } from "./clock.js";
import type { ControllerContext } from "./context.js";
import { isTerminating, type Pod } from "./objects.js";

export function deletePod(ctx: ControllerContext, pod: Pod, gracePeriodSeconds?: number): Result<Pod, StoreError> {
  const ns = pod.metadata.namespace;
  const grace = gracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
  if ((pod.spec?.nodeName ?? "") === "" || grace <= 0) return ctx.store.delete("Pod", ns, pod.metadata.name);
  if (isTerminating(pod)) return ok(pod);
  return ctx.store.modify("Pod", ns, pod.metadata.name, (p) => {
    const meta = p.metadata as { deletionTimestamp?: string; deletionGracePeriodSeconds?: number };
    meta.deletionTimestamp = timestampAt(ctx.wall.epochMs, ctx.wall.clock.now + grace * NS_PER_SECOND);
    meta.deletionGracePeriodSeconds = grace;
  });
}
