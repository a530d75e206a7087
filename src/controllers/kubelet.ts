// The kubelets of all nodes, reduced to what the lab shows: a pod bound to a node goes
// ContainerCreating, then (after pulling the image if needed) Running and Ready with an address
// from the pod IP allocator; a pod being deleted stops its containers and disappears. Events:
// Pulling, Pulled, Created, Started, Killing, as the kubelet words them.
import type { ContainerStatus, PodCondition, PodStatus } from "kubernetes-types/core/v1.js";
import type { KubeObject } from "../k8s/index.js";
import { NS_PER_SECOND, seconds } from "./clock.js";
import type { ControllerContext } from "./context.js";
import type { PodIpAllocator } from "./ip-allocator.js";
import { Fnv32a } from "./template-hash/fnv.js";
import { isTerminating, podKey, podPhase, writeStatus, type Pod } from "./objects.js";

export interface KubeletOptions {
  /** Create and start containers once the image is on the node (default 1 s). */
  readonly startDelayNs?: number;
  /** Pull an image (default 2 s). */
  readonly pullDelayNs?: number;
  /** Stop a deleted pod's containers (default 1 s, never more than its grace period). */
  readonly stopDelayNs?: number;
}

type Status = { -readonly [K in keyof PodStatus]: PodStatus[K] };

const imageOf = (image: string | undefined): string => image ?? "";

/** 64 hex digits derived from `text` (container and image ids look like the runtime's). */
function hexId(text: string): string {
  let out = "";
  for (let round = 0; out.length < 64; round++) out += new Fnv32a().writeString(`${round}:${text}`).sum32().toString(16).padStart(8, "0");
  return out;
}

/** The image reference containerd reports: registry-qualified, with a digest. */
function imageId(image: string): string {
  const name = image.split("@")[0]!.replace(/:[^/:]+$/, "");
  const qualified = name.includes("/") ? (name.split("/")[0]!.includes(".") ? name : `docker.io/${name}`) : `docker.io/library/${name}`;
  return `${qualified}@sha256:${hexId(image)}`;
}

export class Kubelets {
  private readonly starting = new Map<string, number>();
  private readonly stopping = new Map<string, number>();
  /** Images present per node. */
  private readonly images = new Map<string, Set<string>>();
  /** Pods holding an address: uid -> key given to the allocator. */
  private readonly addressed = new Map<string, string>();
  private readonly startDelay: number;
  private readonly pullDelay: number;
  private readonly stopDelay: number;

  constructor(
    private readonly ctx: ControllerContext,
    private readonly allocator: PodIpAllocator,
    options: KubeletOptions = {},
  ) {
    this.startDelay = options.startDelayNs ?? seconds(1);
    this.pullDelay = options.pullDelayNs ?? seconds(2);
    this.stopDelay = options.stopDelayNs ?? seconds(1);
  }

  sync(): void {
    const pods = this.ctx.store.list("Pod");
    const live = new Set(pods.map((p) => p.metadata.uid ?? ""));
    for (const [uid, key] of this.addressed) {
      if (!live.has(uid)) {
        this.allocator.release(key);
        this.addressed.delete(uid);
      }
    }
    for (const pod of pods) {
      const uid = pod.metadata.uid ?? "";
      const nodeName = pod.spec?.nodeName ?? "";
      if (nodeName === "") continue;
      const node = this.ctx.store.get("Node", undefined, nodeName);
      if (isTerminating(pod)) {
        if (!this.stopping.has(uid)) this.beginStop(pod, uid);
        continue;
      }
      if (node === undefined || podPhase(pod) !== "Pending" || this.starting.has(uid)) continue;
      this.beginStart(pod, node, uid);
    }
  }

  private source(pod: Pod): { component: string; host: string } {
    return { component: "kubelet", host: pod.spec?.nodeName ?? "" };
  }

  private beginStart(pod: Pod, node: KubeObject<"Node">, uid: string): void {
    const now = this.ctx.wall.timestamp();
    const hostIP = node.status?.addresses?.find((a) => a.type === "InternalIP")?.address;
    this.ctx.store.modify("Pod", pod.metadata.namespace, pod.metadata.name, (p) => {
      const status: Status = { ...p.status };
      writeStatus(p, status);
      if (hostIP !== undefined) {
        status.hostIP = hostIP;
        status.hostIPs = [{ ip: hostIP }];
      }
      status.startTime ??= now;
      status.conditions = mergeConditions(status.conditions, [
        { type: "PodReadyToStartContainers", status: "False", lastTransitionTime: now },
        { type: "Initialized", status: "True", lastTransitionTime: now },
        { type: "Ready", status: "False", lastTransitionTime: now, reason: "ContainersNotReady", message: `containers with unready status: [${p.spec!.containers.map((c) => c.name).join(" ")}]` },
        { type: "ContainersReady", status: "False", lastTransitionTime: now, reason: "ContainersNotReady", message: `containers with unready status: [${p.spec!.containers.map((c) => c.name).join(" ")}]` },
        { type: "PodScheduled", status: "True", lastTransitionTime: now },
      ]);
      status.containerStatuses = p.spec!.containers.map(
        (c): ContainerStatus => ({
          name: c.name,
          image: imageOf(c.image),
          imageID: "",
          ready: false,
          restartCount: 0,
          started: false,
          state: { waiting: { reason: "ContainerCreating" } },
        }),
      );
    });
    const present = this.images.get(node.metadata.name) ?? new Set<string>();
    this.images.set(node.metadata.name, present);
    const pulls = pod.spec!.containers.filter((c) => c.imagePullPolicy === "Always" || !present.has(imageOf(c.image)));
    const delay = this.startDelay + (pulls.length > 0 ? this.pullDelay : 0);
    for (const c of pulls) {
      this.ctx.events.record(pod, "Normal", "Pulling", `Pulling image "${imageOf(c.image)}"`, this.source(pod), `spec.containers{${c.name}}`);
    }
    const id = this.ctx.wall.clock.schedule(delay, () => this.finishStart(pod, uid, pulls.map((c) => c.name)));
    this.starting.set(uid, id);
  }

  private finishStart(pod: Pod, uid: string, pulled: readonly string[]): void {
    this.starting.delete(uid);
    const current = this.ctx.store.get("Pod", pod.metadata.namespace, pod.metadata.name);
    if (current === undefined || current.metadata.uid !== uid || isTerminating(current)) return;
    const nodeName = current.spec?.nodeName ?? "";
    const key = podKey(current);
    const ip = current.spec?.hostNetwork === true ? (current.status?.hostIP ?? null) : this.allocator.allocate(nodeName, `${key}/${uid}`);
    if (current.spec?.hostNetwork !== true && ip !== null) this.addressed.set(uid, `${key}/${uid}`);
    const now = this.ctx.wall.timestamp();
    const present = this.images.get(nodeName) ?? new Set<string>();
    for (const c of current.spec!.containers) {
      const image = imageOf(c.image);
      const message = pulled.includes(c.name)
        ? `Successfully pulled image "${image}" in ${this.pullDelay / NS_PER_SECOND}s (${this.pullDelay / NS_PER_SECOND}s including waiting)`
        : `Container image "${image}" already present on machine`;
      present.add(image);
      const field = `spec.containers{${c.name}}`;
      this.ctx.events.record(current, "Normal", "Pulled", message, this.source(current), field);
      this.ctx.events.record(current, "Normal", "Created", `Created container ${c.name}`, this.source(current), field);
      this.ctx.events.record(current, "Normal", "Started", `Started container ${c.name}`, this.source(current), field);
    }
    this.images.set(nodeName, present);
    this.ctx.store.modify("Pod", current.metadata.namespace, current.metadata.name, (p) => {
      const status: Status = { ...p.status };
      writeStatus(p, status);
      status.phase = "Running";
      if (ip !== null) {
        status.podIP = ip;
        status.podIPs = [{ ip }];
      }
      status.conditions = mergeConditions(
        status.conditions,
        ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => ({ type, status: "True", lastTransitionTime: now })),
      );
      status.containerStatuses = p.spec!.containers.map(
        (c): ContainerStatus => ({
          name: c.name,
          image: imageOf(c.image),
          imageID: imageId(imageOf(c.image)),
          containerID: `containerd://${hexId(`${uid}/${c.name}`)}`,
          ready: true,
          restartCount: 0,
          started: true,
          state: { running: { startedAt: now } },
        }),
      );
    });
  }

  private beginStop(pod: Pod, uid: string): void {
    const timer = this.starting.get(uid);
    if (timer !== undefined) {
      this.ctx.wall.clock.cancel(timer);
      this.starting.delete(uid);
    }
    if (podPhase(pod) === "Running") {
      for (const c of pod.spec!.containers) {
        this.ctx.events.record(pod, "Normal", "Killing", `Stopping container ${c.name}`, this.source(pod), `spec.containers{${c.name}}`);
      }
    }
    const grace = (pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30) * NS_PER_SECOND;
    const id = this.ctx.wall.clock.schedule(Math.min(this.stopDelay, grace), () => {
      this.stopping.delete(uid);
      const current = this.ctx.store.get("Pod", pod.metadata.namespace, pod.metadata.name);
      if (current !== undefined && current.metadata.uid === uid) this.ctx.store.delete("Pod", pod.metadata.namespace, pod.metadata.name);
    });
    this.stopping.set(uid, id);
  }
}

/** Replaces conditions by type, keeping lastTransitionTime when the status did not change; kubelet's order. */
function mergeConditions(current: readonly PodCondition[] | undefined, updates: readonly PodCondition[]): PodCondition[] {
  const out: PodCondition[] = [];
  for (const u of updates) {
    const old = current?.find((c) => c.type === u.type);
    out.push(old !== undefined && old.status === u.status ? { ...u, lastTransitionTime: old.lastTransitionTime ?? u.lastTransitionTime! } : { ...u });
  }
  for (const c of current ?? []) if (!updates.some((u) => u.type === c.type)) out.push(c);
  return out;
}
