// Shapes of Pod, PodSpec, Container and the scheduling fields (tolerations, affinity, spread).
import { isIp } from "../addresses.js";
import { checkDns1123Label, checkDns1123Subdomain, checkLabelValue, checkPortName, checkQualifiedName, PORT_RANGE_MESSAGE } from "../names.js";
import { resourceNameCheck } from "./resources.js";
import { labelSelector, objectMeta, stringList, typeMeta } from "./meta.js";
import { volume, volumeMount } from "./volumes.js";
import { bool, int, list, map, obj, oneOf, opaque, opaqueList, quantity, str, unsupported, type Shape } from "./shape.js";

const ipCheck = (v: string): string | null => (isIp(v) ? null : `invalid value ${JSON.stringify(v)}: must be a valid IP address, (e.g. 10.9.8.7)`);
const oneOfOrEmpty =
  (...values: string[]) =>
  (v: string): string | null =>
    v === "" || values.includes(v) ? null : `must be one of ${values.join(", ")}`;

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
export const PROTOCOLS = ["TCP", "UDP", "SCTP"] as const;

export const containerPort = obj(
  {
    containerPort: int(1, 65535, PORT_RANGE_MESSAGE),
    hostPort: int(1, 65535, PORT_RANGE_MESSAGE),
    hostIP: str(ipCheck),
    name: str(checkPortName),
    protocol: oneOf(...PROTOCOLS),
  },
  ["containerPort"],
);

export const resourceList: Shape = map(quantity, resourceNameCheck("container"));

export const resourceRequirements = obj({
  limits: resourceList,
  requests: resourceList,
  claims: unsupported("dynamic resource claims are not modelled"),
});

export const container = obj(
  {
    name: str(checkDns1123Label),
    image: str(),
    command: stringList,
    args: stringList,
    workingDir: str(),
    ports: list(containerPort),
    env: opaqueList,
    envFrom: opaqueList,
    resources: resourceRequirements,
    resizePolicy: opaqueList,
    restartPolicy: oneOf("Always"),
    volumeMounts: list(volumeMount),
    volumeDevices: opaqueList,
    livenessProbe: opaque,
    readinessProbe: opaque,
    startupProbe: opaque,
    lifecycle: opaque,
    terminationMessagePath: str(),
    terminationMessagePolicy: oneOf("File", "FallbackToLogsOnError"),
    imagePullPolicy: oneOf("Always", "Never", "IfNotPresent"),
    securityContext: opaque,
    stdin: bool,
    stdinOnce: bool,
    tty: bool,
  },
  ["name"],
);

export const toleration = obj({
  key: str(checkQualifiedName),
  operator: str(oneOfOrEmpty("Equal", "Exists")),
  value: str(checkLabelValue),
  effect: str(oneOfOrEmpty(...TAINT_EFFECTS)),
  tolerationSeconds: int(),
});

const nodeSelectorRequirement = obj(
  { key: str(), operator: oneOf("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"), values: stringList },
  ["key", "operator"],
);
const nodeSelectorTerm = obj({ matchExpressions: list(nodeSelectorRequirement), matchFields: list(nodeSelectorRequirement) });
const weight = int(1, 100);

export const nodeAffinity = obj({
  requiredDuringSchedulingIgnoredDuringExecution: obj({ nodeSelectorTerms: list(nodeSelectorTerm) }, ["nodeSelectorTerms"]),
  preferredDuringSchedulingIgnoredDuringExecution: list(obj({ weight, preference: nodeSelectorTerm }, ["weight", "preference"])),
});

const alphaMatchKeys = unsupported("alpha in Kubernetes 1.30 (MatchLabelKeysInPodAffinity is off): the API server drops it");
export const podAffinityTerm = obj(
  {
    labelSelector,
    namespaces: stringList,
    namespaceSelector: labelSelector,
    topologyKey: str(),
    matchLabelKeys: alphaMatchKeys,
    mismatchLabelKeys: alphaMatchKeys,
  },
  ["topologyKey"],
);
const podAffinityRules = obj({
  requiredDuringSchedulingIgnoredDuringExecution: list(podAffinityTerm),
  preferredDuringSchedulingIgnoredDuringExecution: list(obj({ weight, podAffinityTerm }, ["weight", "podAffinityTerm"])),
});

export const affinity = obj({ nodeAffinity, podAffinity: podAffinityRules, podAntiAffinity: podAffinityRules });

export const topologySpreadConstraint = obj(
  {
    maxSkew: int(1, undefined, "must be greater than zero"),
    topologyKey: str(checkQualifiedName),
    whenUnsatisfiable: oneOf("DoNotSchedule", "ScheduleAnyway"),
    labelSelector,
    minDomains: int(1, undefined, "must be greater than zero"),
    nodeAffinityPolicy: oneOf("Honor", "Ignore"),
    nodeTaintsPolicy: oneOf("Honor", "Ignore"),
    matchLabelKeys: stringList,
  },
  ["maxSkew", "topologyKey", "whenUnsatisfiable"],
);

export const podSpec = obj(
  {
    containers: list(container),
    initContainers: list(container),
    ephemeralContainers: unsupported("ephemeral (debug) containers are not modelled"),
    restartPolicy: oneOf("Always", "OnFailure", "Never"),
    terminationGracePeriodSeconds: int(0),
    activeDeadlineSeconds: int(1),
    dnsPolicy: oneOf("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"),
    dnsConfig: opaque,
    nodeSelector: map(str(checkLabelValue), checkQualifiedName),
    nodeName: str(checkDns1123Subdomain),
    serviceAccountName: str(),
    serviceAccount: str(),
    automountServiceAccountToken: bool,
    hostNetwork: bool,
    hostPID: bool,
    hostIPC: bool,
    hostUsers: bool,
    shareProcessNamespace: bool,
    securityContext: opaque,
    imagePullSecrets: opaqueList,
    hostname: str(checkDns1123Label),
    subdomain: str(checkDns1123Label),
    setHostnameAsFQDN: bool,
    affinity,
    schedulerName: str(),
    tolerations: list(toleration),
    hostAliases: opaqueList,
    priorityClassName: str(),
    priority: int(),
    preemptionPolicy: oneOf("PreemptLowerPriority", "Never"),
    readinessGates: opaqueList,
    runtimeClassName: str(),
    enableServiceLinks: bool,
    overhead: map(quantity, resourceNameCheck("container")),
    topologySpreadConstraints: list(topologySpreadConstraint),
    os: obj({ name: oneOf("linux", "windows") }, ["name"]),
    schedulingGates: unsupported("scheduling gates are not modelled: the pod is scheduled as if it had none"),
    resourceClaims: unsupported("dynamic resource claims are not modelled"),
    volumes: list(volume),
  },
  ["containers"],
);

const podIp = obj({ ip: str(ipCheck) }, ["ip"]);

export const podStatus = obj({
  phase: oneOf("Pending", "Running", "Succeeded", "Failed", "Unknown"),
  podIP: str(ipCheck),
  podIPs: list(podIp),
  hostIP: str(ipCheck),
  hostIPs: list(podIp),
  qosClass: oneOf("Guaranteed", "Burstable", "BestEffort"),
  nominatedNodeName: str(),
  message: str(),
  reason: str(),
  startTime: str(),
  conditions: opaqueList,
  containerStatuses: opaqueList,
  initContainerStatuses: opaqueList,
  ephemeralContainerStatuses: opaqueList,
  resize: str(),
  resourceClaimStatuses: opaqueList,
});

export const podTemplateSpec = obj({ metadata: objectMeta, spec: podSpec });

export const podShape = obj({ ...typeMeta, metadata: objectMeta, spec: podSpec, status: podStatus }, ["spec"]);
