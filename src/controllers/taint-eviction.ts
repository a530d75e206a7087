// Taint-based eviction (pkg/controller/tainteviction): a pod on a node with a NoExecute taint it
// does not tolerate is deleted at once; one that tolerates every NoExecute taint stays forever,
// or for the smallest tolerationSeconds among the tolerations used, counted from when the
// controller saw the taint. Removing the taint in time cancels the eviction.
import type { Taint, Toleration } from "kubernetes-types/core/v1.js";
import { NS_PER_SECOND } from "./clock.js";
import type { ControllerContext } from "./context.js";
import { deletePod } from "./pod-deletion.js";
import { isTerminating, podKey, type Pod } from "./objects.js";
import { toleratesTaint } from "./tolerations.js";

const SOURCE = { component: "taint-eviction-controller" };

/** The toleration used for each taint, or null when some taint is not tolerated (getMatchingTolerations). */
function matchingTolerations(taints: readonly Taint[], tolerations: readonly Toleration[]): Toleration[] | null {
  const out: Toleration[] = [];
  for (const taint of taints) {
    const t = tolerations.find((tol) => toleratesTaint(tol, taint));
    if (t === undefined) return null;
    out.push(t);
  }
  return out;
}

/** getMinTolerationTime in seconds: 0 = now, -1 = never. */
export function minTolerationSeconds(tolerations: readonly Toleration[]): number {
  if (tolerations.length === 0) return 0;
  let min = Number.POSITIVE_INFINITY;
  for (const t of tolerations) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds);
  }
  return min === Number.POSITIVE_INFINITY ? -1 : min;
}

interface Pending {
  readonly at: number;
  readonly timer: number;
}

export class TaintEvictionController {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly ctx: ControllerContext) {}

  sync(): void {
    const seen = new Set<string>();
    for (const pod of this.ctx.store.list("Pod")) {
      const nodeName = pod.spec?.nodeName ?? "";
      if (nodeName === "" || isTerminating(pod)) continue;
      const uid = pod.metadata.uid ?? podKey(pod);
      seen.add(uid);
      const node = this.ctx.store.get("Node", undefined, nodeName);
      const taints = (node?.spec?.taints ?? []).filter((t) => t.effect === "NoExecute");
      if (taints.length === 0) {
        this.cancel(pod, uid, true);
        continue;
      }
      const used = matchingTolerations(taints, pod.spec?.tolerations ?? []);
      const wait = used === null ? 0 : minTolerationSeconds(used);
      if (wait < 0) this.cancel(pod, uid, true);
      else if (wait === 0) this.evict(pod, uid);
      else this.evictLater(pod, uid, wait * NS_PER_SECOND);
    }
    for (const [uid, p] of this.pending) {
      if (!seen.has(uid)) {
        this.ctx.wall.clock.cancel(p.timer);
        this.pending.delete(uid);
      }
    }
  }

  private evict(pod: Pod, uid: string): void {
    this.cancel(pod, uid, false);
    this.ctx.events.record(pod, "Normal", "TaintManagerEviction", `Marking for deletion Pod ${podKey(pod)}`, SOURCE);
    deletePod(this.ctx, pod);
  }

  private evictLater(pod: Pod, uid: string, delay: number): void {
    const at = this.ctx.wall.clock.now + delay;
    const have = this.pending.get(uid);
    if (have !== undefined && have.at <= at) return;
    if (have !== undefined) this.ctx.wall.clock.cancel(have.timer);
    const timer = this.ctx.wall.clock.schedule(delay, () => {
      this.pending.delete(uid);
      const current = this.ctx.store.get("Pod", pod.metadata.namespace, pod.metadata.name);
      if (current !== undefined && current.metadata.uid === pod.metadata.uid && !isTerminating(current)) this.evict(current, uid);
    });
    this.pending.set(uid, { at, timer });
  }

  private cancel(pod: Pod, uid: string, announce: boolean): void {
    const have = this.pending.get(uid);
    if (have === undefined) return;
    this.ctx.wall.clock.cancel(have.timer);
    this.pending.delete(uid);
    if (announce) this.ctx.events.record(pod, "Normal", "TaintManagerEviction", `Cancelling deletion of Pod ${podKey(pod)}`, SOURCE);
  }
}
