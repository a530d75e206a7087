// Plugin arguments of KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) with the defaults
// kube-scheduler 1.30 applies (pkg/scheduler/apis/config/v1/defaults.go).
import type { NodeAffinity, TopologySpreadConstraint } from "kubernetes-types/core/v1.js";

export const ScoringStrategyType = {
  LEAST_ALLOCATED: "LeastAllocated",
  MOST_ALLOCATED: "MostAllocated",
  REQUESTED_TO_CAPACITY_RATIO: "RequestedToCapacityRatio",
} as const;
export type ScoringStrategyType = (typeof ScoringStrategyType)[keyof typeof ScoringStrategyType];

export interface ResourceSpec {
  readonly name: string;
  readonly weight: number;
}

export interface UtilizationShapePoint {
  /** 0-100 */
  readonly utilization: number;
  /** 0-10 */
  readonly score: number;
}

export interface ScoringStrategy {
  readonly type: ScoringStrategyType;
  readonly resources: readonly ResourceSpec[];
  readonly shape: readonly UtilizationShapePoint[];
}

export interface NodeResourcesFitArgs {
  readonly ignoredResources: readonly string[];
  readonly ignoredResourceGroups: readonly string[];
  readonly scoringStrategy: ScoringStrategy;
}

export interface BalancedAllocationArgs {
  readonly resources: readonly ResourceSpec[];
}

export interface InterPodAffinityArgs {
  readonly hardPodAffinityWeight: number;
  readonly ignorePreferredTermsOfExistingPods: boolean;
}

export const DefaultingType = { SYSTEM: "System", LIST: "List" } as const;
export type DefaultingType = (typeof DefaultingType)[keyof typeof DefaultingType];

export interface PodTopologySpreadArgs {
  readonly defaultConstraints: readonly TopologySpreadConstraint[];
  readonly defaultingType: DefaultingType;
}

export interface NodeAffinityArgs {
  readonly addedAffinity?: NodeAffinity;
}

export interface DefaultPreemptionArgs {
  readonly minCandidateNodesPercentage: number;
  readonly minCandidateNodesAbsolute: number;
}

export interface PluginArgs {
  readonly DefaultPreemption: DefaultPreemptionArgs;
  readonly NodeResourcesFit: NodeResourcesFitArgs;
  readonly NodeResourcesBalancedAllocation: BalancedAllocationArgs;
  readonly InterPodAffinity: InterPodAffinityArgs;
  readonly PodTopologySpread: PodTopologySpreadArgs;
  readonly NodeAffinity: NodeAffinityArgs;
}

export const DEFAULT_RESOURCES: readonly ResourceSpec[] = [
  { name: "cpu", weight: 1 },
  { name: "memory", weight: 1 },
];

/** PodTopologySpread's cluster-level defaults when DefaultingType is System (plugins/podtopologyspread). */
export const SYSTEM_DEFAULT_CONSTRAINTS: readonly TopologySpreadConstraint[] = [
  { topologyKey: "kubernetes.io/hostname", whenUnsatisfiable: "ScheduleAnyway", maxSkew: 3 },
  { topologyKey: "topology.kubernetes.io/zone", whenUnsatisfiable: "ScheduleAnyway", maxSkew: 5 },
];

export const DEFAULT_PLUGIN_ARGS: PluginArgs = {
  DefaultPreemption: { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 },
  NodeResourcesFit: {
    ignoredResources: [],
    ignoredResourceGroups: [],
    scoringStrategy: { type: ScoringStrategyType.LEAST_ALLOCATED, resources: DEFAULT_RESOURCES, shape: [] },
  },
  NodeResourcesBalancedAllocation: { resources: DEFAULT_RESOURCES },
  InterPodAffinity: { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false },
  PodTopologySpread: { defaultConstraints: [], defaultingType: DefaultingType.SYSTEM },
  NodeAffinity: {},
};
