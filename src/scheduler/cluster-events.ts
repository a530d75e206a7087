// Cluster events that may make a pending pod schedulable, and which plugins care about which
// (EventsToRegister of kube-scheduler 1.30, QueueingHints off by default): a pod rejected by some
// plugins is retried only on events one of those plugins registered for.
import type { Node } from "kubernetes-types/core/v1.js";
import { PluginName } from "./plugins/names.js";

export const ActionType = {
  ADD: 1,
  DELETE: 2,
  UPDATE_NODE_ALLOCATABLE: 4,
  UPDATE_NODE_LABEL: 8,
  UPDATE_NODE_TAINT: 16,
  UPDATE_NODE_CONDITION: 32,
  UPDATE_NODE_ANNOTATION: 64,
  UPDATE_POD: 128,
} as const;
const UPDATE = 4 | 8 | 16 | 32 | 64 | 128;
const ALL = 1 | 2 | UPDATE;

export type EventResource = "Node" | "Pod";

export interface ClusterEvent {
  readonly resource: EventResource;
  readonly action: number;
  /** Upstream's metric label, e.g. "NodeLabelChange". */
  readonly label: string;
}

export const NODE_ADD: ClusterEvent = { resource: "Node", action: ActionType.ADD, label: "NodeAdd" };
export const ASSIGNED_POD_ADD: ClusterEvent = { resource: "Pod", action: ActionType.ADD, label: "AssignedPodAdd" };
export const ASSIGNED_POD_UPDATE: ClusterEvent = { resource: "Pod", action: ActionType.UPDATE_POD, label: "AssignedPodUpdate" };
export const ASSIGNED_POD_DELETE: ClusterEvent = { resource: "Pod", action: ActionType.DELETE, label: "AssignedPodDelete" };

const ev = (resource: EventResource, action: number): ClusterEvent => ({ resource, action, label: "" });

/** The events each modelled plugin registers for. */
export const PLUGIN_EVENTS: Readonly<Record<string, readonly ClusterEvent[]>> = {
  [PluginName.NODE_UNSCHEDULABLE]: [ev("Node", ActionType.ADD | ActionType.UPDATE_NODE_TAINT)],
  [PluginName.NODE_NAME]: [ev("Node", ActionType.ADD | UPDATE)],
  [PluginName.TAINT_TOLERATION]: [ev("Node", ActionType.ADD | UPDATE)],
  [PluginName.NODE_AFFINITY]: [ev("Node", ActionType.ADD | UPDATE)],
  [PluginName.NODE_PORTS]: [ev("Pod", ActionType.DELETE), ev("Node", ActionType.ADD | UPDATE)],
  [PluginName.NODE_RESOURCES_FIT]: [ev("Pod", ActionType.DELETE), ev("Node", ActionType.ADD | UPDATE)],
  [PluginName.POD_TOPOLOGY_SPREAD]: [
    ev("Pod", ALL),
    ev("Node", ActionType.ADD | ActionType.DELETE | ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT),
  ],
  [PluginName.INTER_POD_AFFINITY]: [ev("Pod", ALL), ev("Node", ActionType.ADD | ActionType.UPDATE_NODE_LABEL)],
};

/** Whether a pod rejected by `plugins` should be retried on `event` (isPodWorthRequeuing without hints). */
export function worthRequeuing(plugins: ReadonlySet<string>, event: ClusterEvent): boolean {
  if (plugins.size === 0) return true;
  for (const p of plugins) {
    for (const reg of PLUGIN_EVENTS[p] ?? []) if (reg.resource === event.resource && (reg.action & event.action) !== 0) return true;
  }
  return false;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** nodeSchedulingPropertiesChange: the update events a node change amounts to. */
export function nodeUpdateEvents(oldNode: Node, newNode: Node): ClusterEvent[] {
  const out: ClusterEvent[] = [];
  if ((oldNode.spec?.unschedulable === true) !== (newNode.spec?.unschedulable === true) && newNode.spec?.unschedulable !== true) {
    out.push({ resource: "Node", action: ActionType.UPDATE_NODE_TAINT, label: "NodeSpecUnschedulableChange" });
  }
  if (!same(oldNode.status?.allocatable, newNode.status?.allocatable)) {
    out.push({ resource: "Node", action: ActionType.UPDATE_NODE_ALLOCATABLE, label: "NodeAllocatableChange" });
  }
  if (!same(oldNode.metadata?.labels, newNode.metadata?.labels)) out.push({ resource: "Node", action: ActionType.UPDATE_NODE_LABEL, label: "NodeLabelChange" });
  if (!same(oldNode.spec?.taints, newNode.spec?.taints)) out.push({ resource: "Node", action: ActionType.UPDATE_NODE_TAINT, label: "NodeTaintChange" });
  if (!same(oldNode.status?.conditions, newNode.status?.conditions)) {
    out.push({ resource: "Node", action: ActionType.UPDATE_NODE_CONDITION, label: "NodeConditionChange" });
  }
  if (!same(oldNode.metadata?.annotations, newNode.metadata?.annotations)) {
    out.push({ resource: "Node", action: ActionType.UPDATE_NODE_ANNOTATION, label: "NodeAnnotationChange" });
  }
  return out;
}
