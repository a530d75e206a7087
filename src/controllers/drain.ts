// kubectl drain as a process in simulated time (k8s.io/kubectl pkg/drain and cmd/drain): cordon,
// pick the node's pods through kubectl's filters (DaemonSet-managed, mirror, local storage,
// unreplicated), then evict them all at once, retrying a refused eviction every 5 s and polling
// each evicted pod every second until it is gone. Output lines are kubectl's, to stdout or stderr.
import type { ControllerContext } from "./context.js";
import { setCordon } from "./cordon.js";
import { evictPod } from "./disruption.js";
import { NS_PER_SECOND } from "./clock.js";
import { controllerOf, podPhase, type Pod } from "./objects.js";

export const DRAIN_MESSAGES = {
  daemonSetFatal: "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)",
  daemonSetWarning: "ignoring DaemonSet-managed Pods",
  localStorageFatal: "Pods with local storage (use --delete-emptydir-data to override)",
  localStorageWarning: "deleting Pods with local storage",
  unmanagedFatal: "cannot delete Pods that declare no controller (use --force to override)",
  unmanagedWarning: "deleting Pods that declare no controller",
} as const;

export interface DrainOptions {
  readonly ignoreDaemonSets?: boolean;
  readonly deleteEmptyDirData?: boolean;
  readonly force?: boolean;
  /** --pod-selector, already compiled. */
  readonly podSelector?: (labels: Readonly<Record<string, string>>) => boolean;
  /** --timeout; 0 or absent waits forever. */
  readonly timeoutNs?: number;
}

export interface DrainOutput {
  out(line: string): void;
  err(line: string): void;
}

type Verdict = { readonly delete: boolean; readonly kind: "okay" | "skip" | "warning" | "error"; readonly message: string };

const okay: Verdict = { delete: true, kind: "okay", message: "" };

export type DrainState = "running" | "drained" | "failed";

export class DrainRun {
  state: DrainState = "running";
  /** The error kubectl exits with (printed as "error: ..."), when failed. */
  error: string | null = null;
  private remaining = 0;
  private readonly failures: string[] = [];
  private deadline = Number.POSITIVE_INFINITY;

  constructor(
    private readonly ctx: ControllerContext,
    readonly node: string,
    private readonly options: DrainOptions,
    private readonly output: DrainOutput,
  ) {}

  start(): void {
    const cordon = setCordon(this.ctx.store, this.node, true);
    if (!cordon.ok) return this.fail(cordon.error.message);
    this.output.out(`node/${this.node} ${cordon.value}`);
    const candidates = this.ctx.store.list("Pod", {
      where: (p) => p.spec?.nodeName === this.node && (this.options.podSelector?.(p.metadata.labels ?? {}) ?? true),
    });
    const verdicts = candidates.map((p) => ({ pod: p, verdict: this.filter(p) }));
    const errors = groupMessages(verdicts.filter((v) => v.verdict.kind === "error"), (m) => (m.toLowerCase().startsWith("cannot delete") ? m : `cannot delete ${m}`));
    if (errors.length > 0) {
      this.output.err(`error: unable to drain node "${this.node}", aborting command...`);
      this.output.err("");
      this.output.err("There are pending nodes to be drained:");
      this.output.err(` ${this.node}`);
      return this.fail(errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`);
    }
    const warnings = groupMessages(verdicts.filter((v) => v.verdict.kind === "warning"), (m) => m);
    if (warnings.length > 0) this.output.err(`WARNING: ${warnings.join("; ")}`);
    const pods = verdicts.filter((v) => v.verdict.delete).map((v) => v.pod);
    if (pods.length === 0) return this.finish();
    if ((this.options.timeoutNs ?? 0) > 0) this.deadline = this.ctx.wall.clock.now + this.options.timeoutNs!;
    this.remaining = pods.length;
    // kubectl starts one goroutine per pod; Go runs the last one started first, then the others in order.
    const order = [pods[pods.length - 1]!, ...pods.slice(0, -1)];
    for (const pod of order) this.attempt(pod);
  }

  private filter(pod: Pod): Verdict {
    const finished = podPhase(pod) === "Succeeded" || podPhase(pod) === "Failed";
    const ref = controllerOf(pod);
    if (ref?.kind === "DaemonSet" && !finished) {
      if (this.ctx.store.get("DaemonSet", pod.metadata.namespace, ref.name) === undefined) {
        const msg = `daemonsets.apps "${ref.name}" not found`;
        return this.options.force === true ? { delete: true, kind: "warning", message: msg } : { delete: false, kind: "error", message: msg };
      }
      return this.options.ignoreDaemonSets === true
        ? { delete: false, kind: "warning", message: DRAIN_MESSAGES.daemonSetWarning }
        : { delete: false, kind: "error", message: DRAIN_MESSAGES.daemonSetFatal };
    }
    if (pod.metadata.annotations?.["kubernetes.io/config.mirror"] !== undefined) return { delete: false, kind: "skip", message: "" };
    if ((pod.spec?.volumes ?? []).some((v) => v.emptyDir !== undefined) && !finished && this.options.deleteEmptyDirData !== true) {
      return { delete: false, kind: "error", message: DRAIN_MESSAGES.localStorageFatal };
    }
    // The local-storage warning is overwritten by the next filter's verdict, as upstream's TODO says.
    if (!finished && ref === undefined) {
      return this.options.force === true
        ? { delete: true, kind: "warning", message: DRAIN_MESSAGES.unmanagedWarning }
        : { delete: false, kind: "error", message: DRAIN_MESSAGES.unmanagedFatal };
    }
    return okay;
  }

  private attempt(pod: Pod): void {
    const ns = pod.metadata.namespace ?? "default";
    const name = pod.metadata.name;
    this.output.out(`evicting pod ${ns}/${name}`);
    if (this.ctx.wall.clock.now >= this.deadline) return this.podDone(`error when evicting pods/"${name}" -n "${ns}": global timeout reached: ${this.timeoutText()}`);
    const r = evictPod(this.ctx, ns, name);
    if (r.ok) return this.waitGone(pod);
    if (r.code === 404) return this.podDone(null);
    if (r.code === 429) {
      this.output.err(`error when evicting pods/"${name}" -n "${ns}" (will retry after 5s): ${r.message}`);
      this.ctx.wall.clock.schedule(5 * NS_PER_SECOND, () => this.attempt(pod));
      return;
    }
    this.podDone(`error when evicting pods/"${name}" -n "${ns}": ${r.message}`);
  }

  private waitGone(pod: Pod): void {
    const current = this.ctx.store.get("Pod", pod.metadata.namespace, pod.metadata.name);
    if (current === undefined || current.metadata.uid !== pod.metadata.uid) {
      this.output.out(`pod/${pod.metadata.name} evicted`);
      return this.podDone(null);
    }
    if (this.ctx.wall.clock.now >= this.deadline) {
      return this.podDone(`error when waiting for pod "${pod.metadata.name}" in namespace "${pod.metadata.namespace}" to terminate: global timeout reached: ${this.timeoutText()}`);
    }
    this.ctx.wall.clock.schedule(NS_PER_SECOND, () => this.waitGone(pod));
  }

  private timeoutText(): string {
    return `${Math.round((this.options.timeoutNs ?? 0) / NS_PER_SECOND)}s`;
  }

  private podDone(failure: string | null): void {
    if (failure !== null) this.failures.push(failure);
    if (--this.remaining > 0) return;
    if (this.failures.length === 0) return this.finish();
    const pending = this.ctx.store.list("Pod", { where: (p) => p.spec?.nodeName === this.node && this.filter(p).delete });
    const message = this.failures.length === 1 ? this.failures[0]! : `[${this.failures.join(", ")}]`;
    if (pending.length > 0) {
      this.output.err(`There are pending pods in node "${this.node}" when an error occurred: ${message}`);
      for (const p of pending) this.output.err(`pod/${p.metadata.name}`);
    }
    this.output.err(`error: unable to drain node "${this.node}", aborting command...`);
    this.output.err("");
    this.output.err("There are pending nodes to be drained:");
    this.output.err(` ${this.node}`);
    this.fail(message);
  }

  private finish(): void {
    this.output.out(`node/${this.node} drained`);
    this.state = "drained";
  }

  private fail(message: string): void {
    this.error = message;
    this.state = "failed";
  }
}

/** kubectl's "msg: ns/a, ns/b" groups, in the order the messages first appear. */
function groupMessages(items: readonly { pod: Pod; verdict: Verdict }[], text: (message: string) => string): string[] {
  const groups = new Map<string, string[]>();
  for (const { pod, verdict } of items) groups.set(verdict.message, [...(groups.get(verdict.message) ?? []), `${pod.metadata.namespace}/${pod.metadata.name}`]);
  return [...groups].map(([m, pods]) => `${text(m)}: ${pods.join(", ")}`);
}
