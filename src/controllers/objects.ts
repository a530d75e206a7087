// Small helpers over pods and owner references shared by the controllers.
import type { OwnerReference } from "kubernetes-types/meta/v1.js";
import type { PodCondition } from "kubernetes-types/core/v1.js";
import type { KindName, KubeObject } from "../k8s/index.js";

export type Pod = KubeObject<"Pod">;

export const podKey = (pod: { metadata: { namespace?: string | undefined; name: string } }): string =>
  `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`;

export const isTerminating = (obj: { metadata: { deletionTimestamp?: string | undefined } }): boolean =>
  obj.metadata.deletionTimestamp !== undefined;

export const podPhase = (pod: Pod): string => pod.status?.phase ?? "Pending";

/** Counts toward a controller's replicas: not being deleted, not finished. */
export const isActivePod = (pod: Pod): boolean =>
  !isTerminating(pod) && podPhase(pod) !== "Succeeded" && podPhase(pod) !== "Failed";

export function podCondition(pod: Pod, type: string): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === type);
}

export const isPodReady = (pod: Pod): boolean => podCondition(pod, "Ready")?.status === "True";

export function controllerOf(obj: { metadata: { ownerReferences?: readonly OwnerReference[] | undefined } }): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function isControlledBy(obj: { metadata: { ownerReferences?: readonly OwnerReference[] | undefined } }, owner: KubeObject): boolean {
  const ref = controllerOf(obj);
  return ref !== undefined && ref.uid === owner.metadata.uid;
}

const API_VERSIONS: Partial<Record<KindName, string>> = { Deployment: "apps/v1", ReplicaSet: "apps/v1", DaemonSet: "apps/v1" };

/** The controller reference a controller puts on what it creates. */
export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: API_VERSIONS[owner.kind] ?? owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Resolves an intstr percentage or count against `total` (intstr.GetScaledValueFromIntOrPercent). */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === "number") return value;
  const m = /^(\d+)%$/.exec(value);
  if (m === null) {
    const n = Number(value);
    return Number.isInteger(n) ? n : fallback;
  }
  const scaled = (Number(m[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** A copy of a JSON-shaped value that can be changed (store objects are frozen). */
export const copy = <T>(value: T): T => structuredClone(value);

/** kubernetes-types marks some status fields read-only (clients never write them); controllers do. */
export function writeStatus<S>(obj: { readonly status?: S | undefined }, status: S): void {
  (obj as { status?: S }).status = status;
}

/** JSON with object keys sorted and undefined members left out: equal values give equal text. */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v) ?? "null";
}
