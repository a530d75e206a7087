// The Go type of core/v1 PodTemplateSpec as Kubernetes 1.30 declares it (k8s.io/api v0.30,
// k8s.io/apimachinery meta/v1): field order and type names matter, because the deployment
// controller hashes the go-spew rendering of this struct. Types a lab never fills in (volume
// sources, probes, lifecycle hooks, quantities, ...) are opaque: exact when nil.
import { bool, int, map, opaque, ptr, slice, str, struct, type GoType } from "./go-value.js";

const strings = slice(str());
const stringMap = map(str(), str());
const int32 = int("int32");
const int64 = int("int64");

const labelSelector = struct("v1.LabelSelector", [
  ["MatchLabels", "matchLabels", stringMap],
  [
    "MatchExpressions",
    "matchExpressions",
    slice(
      struct("v1.LabelSelectorRequirement", [
        ["Key", "key", str()],
        ["Operator", "operator", str("v1.LabelSelectorOperator")],
        ["Values", "values", strings],
      ]),
    ),
  ],
]);

const objectMeta = struct("v1.ObjectMeta", [
  ["Name", "name", str()],
  ["GenerateName", "generateName", str()],
  ["Namespace", "namespace", str()],
  ["SelfLink", "selfLink", str()],
  ["UID", "uid", str("types.UID")],
  ["ResourceVersion", "resourceVersion", str()],
  ["Generation", "generation", int64],
  ["CreationTimestamp", "creationTimestamp", { kind: "time", name: "v1.Time" }],
  ["DeletionTimestamp", "deletionTimestamp", ptr(opaque("v1.Time"))],
  ["DeletionGracePeriodSeconds", "deletionGracePeriodSeconds", ptr(int64)],
  ["Labels", "labels", stringMap],
  ["Annotations", "annotations", stringMap],
  ["OwnerReferences", "ownerReferences", slice(opaque("v1.OwnerReference"))],
  ["Finalizers", "finalizers", strings],
  ["ManagedFields", "managedFields", slice(opaque("v1.ManagedFieldsEntry"))],
]);

const resourceList = map(str("v1.ResourceName"), opaque("resource.Quantity"), "v1.ResourceList");

const seLinuxOptions = struct("v1.SELinuxOptions", [
  ["User", "user", str()],
  ["Role", "role", str()],
  ["Type", "type", str()],
  ["Level", "level", str()],
]);
const seccompProfile = struct("v1.SeccompProfile", [
  ["Type", "type", str("v1.SeccompProfileType")],
  ["LocalhostProfile", "localhostProfile", ptr(str())],
]);
const appArmorProfile = struct("v1.AppArmorProfile", [
  ["Type", "type", str("v1.AppArmorProfileType")],
  ["LocalhostProfile", "localhostProfile", ptr(str())],
]);

const containerSecurityContext = struct("v1.SecurityContext", [
  [
    "Capabilities",
    "capabilities",
    ptr(
      struct("v1.Capabilities", [
        ["Add", "add", slice(str("v1.Capability"))],
        ["Drop", "drop", slice(str("v1.Capability"))],
      ]),
    ),
  ],
  ["Privileged", "privileged", ptr(bool)],
  ["SELinuxOptions", "seLinuxOptions", ptr(seLinuxOptions)],
  ["WindowsOptions", "windowsOptions", ptr(opaque("v1.WindowsSecurityContextOptions"))],
  ["RunAsUser", "runAsUser", ptr(int64)],
  ["RunAsGroup", "runAsGroup", ptr(int64)],
  ["RunAsNonRoot", "runAsNonRoot", ptr(bool)],
  ["ReadOnlyRootFilesystem", "readOnlyRootFilesystem", ptr(bool)],
  ["AllowPrivilegeEscalation", "allowPrivilegeEscalation", ptr(bool)],
  ["ProcMount", "procMount", ptr(str("v1.ProcMountType"))],
  ["SeccompProfile", "seccompProfile", ptr(seccompProfile)],
  ["AppArmorProfile", "appArmorProfile", ptr(appArmorProfile)],
]);

const container = struct("v1.Container", [
  ["Name", "name", str()],
  ["Image", "image", str()],
  ["Command", "command", strings],
  ["Args", "args", strings],
  ["WorkingDir", "workingDir", str()],
  [
    "Ports",
    "ports",
    slice(
      struct("v1.ContainerPort", [
        ["Name", "name", str()],
        ["HostPort", "hostPort", int32],
        ["ContainerPort", "containerPort", int32],
        ["Protocol", "protocol", str("v1.Protocol")],
        ["HostIP", "hostIP", str()],
      ]),
    ),
  ],
  ["EnvFrom", "envFrom", slice(opaque("v1.EnvFromSource"))],
  [
    "Env",
    "env",
    slice(
      struct("v1.EnvVar", [
        ["Name", "name", str()],
        ["Value", "value", str()],
        ["ValueFrom", "valueFrom", ptr(opaque("v1.EnvVarSource"))],
      ]),
    ),
  ],
  [
    "Resources",
    "resources",
    struct("v1.ResourceRequirements", [
      ["Limits", "limits", resourceList],
      ["Requests", "requests", resourceList],
      ["Claims", "claims", slice(struct("v1.ResourceClaim", [["Name", "name", str()]]))],
    ]),
  ],
  [
    "ResizePolicy",
    "resizePolicy",
    slice(
      struct("v1.ContainerResizePolicy", [
        ["ResourceName", "resourceName", str("v1.ResourceName")],
        ["RestartPolicy", "restartPolicy", str("v1.ResourceResizeRestartPolicy")],
      ]),
    ),
  ],
  ["RestartPolicy", "restartPolicy", ptr(str("v1.ContainerRestartPolicy"))],
  [
    "VolumeMounts",
    "volumeMounts",
    slice(
      struct("v1.VolumeMount", [
        ["Name", "name", str()],
        ["ReadOnly", "readOnly", bool],
        ["RecursiveReadOnly", "recursiveReadOnly", ptr(str("v1.RecursiveReadOnlyMode"))],
        ["MountPath", "mountPath", str()],
        ["SubPath", "subPath", str()],
        ["MountPropagation", "mountPropagation", ptr(str("v1.MountPropagationMode"))],
        ["SubPathExpr", "subPathExpr", str()],
      ]),
    ),
  ],
  [
    "VolumeDevices",
    "volumeDevices",
    slice(
      struct("v1.VolumeDevice", [
        ["Name", "name", str()],
        ["DevicePath", "devicePath", str()],
      ]),
    ),
  ],
  ["LivenessProbe", "livenessProbe", ptr(opaque("v1.Probe"))],
  ["ReadinessProbe", "readinessProbe", ptr(opaque("v1.Probe"))],
  ["StartupProbe", "startupProbe", ptr(opaque("v1.Probe"))],
  ["Lifecycle", "lifecycle", ptr(opaque("v1.Lifecycle"))],
  ["TerminationMessagePath", "terminationMessagePath", str()],
  ["TerminationMessagePolicy", "terminationMessagePolicy", str("v1.TerminationMessagePolicy")],
  ["ImagePullPolicy", "imagePullPolicy", str("v1.PullPolicy")],
  ["SecurityContext", "securityContext", ptr(containerSecurityContext)],
  ["Stdin", "stdin", bool],
  ["StdinOnce", "stdinOnce", bool],
  ["TTY", "tty", bool],
]);

const nodeSelectorRequirements = slice(
  struct("v1.NodeSelectorRequirement", [
    ["Key", "key", str()],
    ["Operator", "operator", str("v1.NodeSelectorOperator")],
    ["Values", "values", strings],
  ]),
);
const nodeSelectorTerm = struct("v1.NodeSelectorTerm", [
  ["MatchExpressions", "matchExpressions", nodeSelectorRequirements],
  ["MatchFields", "matchFields", nodeSelectorRequirements],
]);
const podAffinityTerm = struct("v1.PodAffinityTerm", [
  ["LabelSelector", "labelSelector", ptr(labelSelector)],
  ["Namespaces", "namespaces", strings],
  ["TopologyKey", "topologyKey", str()],
  ["NamespaceSelector", "namespaceSelector", ptr(labelSelector)],
  ["MatchLabelKeys", "matchLabelKeys", strings],
  ["MismatchLabelKeys", "mismatchLabelKeys", strings],
]);
const weightedPodAffinityTerms = slice(
  struct("v1.WeightedPodAffinityTerm", [
    ["Weight", "weight", int32],
    ["PodAffinityTerm", "podAffinityTerm", podAffinityTerm],
  ]),
);
const podAffinityFields = [
  ["RequiredDuringSchedulingIgnoredDuringExecution", "requiredDuringSchedulingIgnoredDuringExecution", slice(podAffinityTerm)],
  ["PreferredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution", weightedPodAffinityTerms],
] as const;

const affinity = struct("v1.Affinity", [
  [
    "NodeAffinity",
    "nodeAffinity",
    ptr(
      struct("v1.NodeAffinity", [
        [
          "RequiredDuringSchedulingIgnoredDuringExecution",
          "requiredDuringSchedulingIgnoredDuringExecution",
          ptr(struct("v1.NodeSelector", [["NodeSelectorTerms", "nodeSelectorTerms", slice(nodeSelectorTerm)]])),
        ],
        [
          "PreferredDuringSchedulingIgnoredDuringExecution",
          "preferredDuringSchedulingIgnoredDuringExecution",
          slice(
            struct("v1.PreferredSchedulingTerm", [
              ["Weight", "weight", int32],
              ["Preference", "preference", nodeSelectorTerm],
            ]),
          ),
        ],
      ]),
    ),
  ],
  ["PodAffinity", "podAffinity", ptr(struct("v1.PodAffinity", podAffinityFields))],
  ["PodAntiAffinity", "podAntiAffinity", ptr(struct("v1.PodAntiAffinity", podAffinityFields))],
]);

const podSecurityContext = struct("v1.PodSecurityContext", [
  ["SELinuxOptions", "seLinuxOptions", ptr(seLinuxOptions)],
  ["WindowsOptions", "windowsOptions", ptr(opaque("v1.WindowsSecurityContextOptions"))],
  ["RunAsUser", "runAsUser", ptr(int64)],
  ["RunAsGroup", "runAsGroup", ptr(int64)],
  ["RunAsNonRoot", "runAsNonRoot", ptr(bool)],
  ["SupplementalGroups", "supplementalGroups", slice(int64)],
  ["FSGroup", "fsGroup", ptr(int64)],
  ["Sysctls", "sysctls", slice(struct("v1.Sysctl", [["Name", "name", str()], ["Value", "value", str()]]))],
  ["FSGroupChangePolicy", "fsGroupChangePolicy", ptr(str("v1.PodFSGroupChangePolicy"))],
  ["SeccompProfile", "seccompProfile", ptr(seccompProfile)],
  ["AppArmorProfile", "appArmorProfile", ptr(appArmorProfile)],
]);

const podSpec = struct("v1.PodSpec", [
  ["Volumes", "volumes", slice(opaque("v1.Volume"))],
  ["InitContainers", "initContainers", slice(container)],
  ["Containers", "containers", slice(container)],
  ["EphemeralContainers", "ephemeralContainers", slice(opaque("v1.EphemeralContainer"))],
  ["RestartPolicy", "restartPolicy", str("v1.RestartPolicy")],
  ["TerminationGracePeriodSeconds", "terminationGracePeriodSeconds", ptr(int64)],
  ["ActiveDeadlineSeconds", "activeDeadlineSeconds", ptr(int64)],
  ["DNSPolicy", "dnsPolicy", str("v1.DNSPolicy")],
  ["NodeSelector", "nodeSelector", stringMap],
  ["ServiceAccountName", "serviceAccountName", str()],
  ["DeprecatedServiceAccount", "serviceAccount", str()],
  ["AutomountServiceAccountToken", "automountServiceAccountToken", ptr(bool)],
  ["NodeName", "nodeName", str()],
  ["HostNetwork", "hostNetwork", bool],
  ["HostPID", "hostPID", bool],
  ["HostIPC", "hostIPC", bool],
  ["ShareProcessNamespace", "shareProcessNamespace", ptr(bool)],
  ["SecurityContext", "securityContext", ptr(podSecurityContext)],
  ["ImagePullSecrets", "imagePullSecrets", slice(struct("v1.LocalObjectReference", [["Name", "name", str()]]))],
  ["Hostname", "hostname", str()],
  ["Subdomain", "subdomain", str()],
  ["Affinity", "affinity", ptr(affinity)],
  ["SchedulerName", "schedulerName", str()],
  [
    "Tolerations",
    "tolerations",
    slice(
      struct("v1.Toleration", [
        ["Key", "key", str()],
        ["Operator", "operator", str("v1.TolerationOperator")],
        ["Value", "value", str()],
        ["Effect", "effect", str("v1.TaintEffect")],
        ["TolerationSeconds", "tolerationSeconds", ptr(int64)],
      ]),
    ),
  ],
  ["HostAliases", "hostAliases", slice(struct("v1.HostAlias", [["IP", "ip", str()], ["Hostnames", "hostnames", strings]]))],
  ["PriorityClassName", "priorityClassName", str()],
  ["Priority", "priority", ptr(int32)],
  ["DNSConfig", "dnsConfig", ptr(opaque("v1.PodDNSConfig"))],
  ["ReadinessGates", "readinessGates", slice(struct("v1.PodReadinessGate", [["ConditionType", "conditionType", str("v1.PodConditionType")]]))],
  ["RuntimeClassName", "runtimeClassName", ptr(str())],
  ["EnableServiceLinks", "enableServiceLinks", ptr(bool)],
  ["PreemptionPolicy", "preemptionPolicy", ptr(str("v1.PreemptionPolicy"))],
  ["Overhead", "overhead", resourceList],
  [
    "TopologySpreadConstraints",
    "topologySpreadConstraints",
    slice(
      struct("v1.TopologySpreadConstraint", [
        ["MaxSkew", "maxSkew", int32],
        ["TopologyKey", "topologyKey", str()],
        ["WhenUnsatisfiable", "whenUnsatisfiable", str("v1.UnsatisfiableConstraintAction")],
        ["LabelSelector", "labelSelector", ptr(labelSelector)],
        ["MinDomains", "minDomains", ptr(int32)],
        ["NodeAffinityPolicy", "nodeAffinityPolicy", ptr(str("v1.NodeInclusionPolicy"))],
        ["NodeTaintsPolicy", "nodeTaintsPolicy", ptr(str("v1.NodeInclusionPolicy"))],
        ["MatchLabelKeys", "matchLabelKeys", strings],
      ]),
    ),
  ],
  ["SetHostnameAsFQDN", "setHostnameAsFQDN", ptr(bool)],
  ["OS", "os", ptr(struct("v1.PodOS", [["Name", "name", str("v1.OSName")]]))],
  ["HostUsers", "hostUsers", ptr(bool)],
  ["SchedulingGates", "schedulingGates", slice(struct("v1.PodSchedulingGate", [["Name", "name", str()]]))],
  ["ResourceClaims", "resourceClaims", slice(opaque("v1.PodResourceClaim"))],
]);

/** core/v1 PodTemplateSpec of Kubernetes 1.30; ObjectMeta is embedded and read from "metadata". */
export const POD_TEMPLATE_SPEC_1_30: GoType = struct("v1.PodTemplateSpec", [
  ["ObjectMeta", "metadata", objectMeta],
  ["Spec", "spec", podSpec],
]);
