// Plugin names as kube-scheduler registers them (pkg/scheduler/framework/plugins/names).

export const PluginName = {
  PRIORITY_SORT: "PrioritySort",
  SCHEDULING_GATES: "SchedulingGates",
  NODE_UNSCHEDULABLE: "NodeUnschedulable",
  NODE_NAME: "NodeName",
  TAINT_TOLERATION: "TaintToleration",
  NODE_AFFINITY: "NodeAffinity",
  NODE_PORTS: "NodePorts",
  NODE_RESOURCES_FIT: "NodeResourcesFit",
  VOLUME_RESTRICTIONS: "VolumeRestrictions",
  NODE_VOLUME_LIMITS: "NodeVolumeLimits",
  VOLUME_BINDING: "VolumeBinding",
  VOLUME_ZONE: "VolumeZone",
  POD_TOPOLOGY_SPREAD: "PodTopologySpread",
  INTER_POD_AFFINITY: "InterPodAffinity",
  DEFAULT_PREEMPTION: "DefaultPreemption",
  NODE_RESOURCES_BALANCED_ALLOCATION: "NodeResourcesBalancedAllocation",
  IMAGE_LOCALITY: "ImageLocality",
  DEFAULT_BINDER: "DefaultBinder",
} as const;
export type PluginName = (typeof PluginName)[keyof typeof PluginName];
