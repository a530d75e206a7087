// Shapes of Service and Endpoints (core/v1).
import { isCidr, isIp } from "../addresses.js";
import { checkDns1123Label, checkLabelValue, checkPortName, checkQualifiedName, PORT_RANGE_MESSAGE } from "../names.js";
import { objectMeta, objectReference, typeMeta } from "./meta.js";
import { PROTOCOLS } from "./pod.js";
import { bool, int, intOrString, list, map, obj, oneOf, opaque, str, unsupported } from "./shape.js";

const ipOrNone = (v: string): string | null =>
  v === "" || v === "None" || isIp(v) ? null : `invalid value ${JSON.stringify(v)}: must be a valid IP address or None`;
const ipCheck = (v: string): string | null => (isIp(v) ? null : `invalid value ${JSON.stringify(v)}: must be a valid IP address, (e.g. 10.9.8.7)`);
const portNumber = (n: number): string | null => (n >= 1 && n <= 65535 ? null : PORT_RANGE_MESSAGE);

export const servicePort = obj(
  {
    name: str(checkDns1123Label),
    protocol: oneOf(...PROTOCOLS),
    appProtocol: str(),
    port: int(1, 65535, PORT_RANGE_MESSAGE),
    targetPort: intOrString(portNumber, checkPortName),
    nodePort: int(1, 65535, PORT_RANGE_MESSAGE),
  },
  ["port"],
);

const serviceSpec = obj({
  type: oneOf("ClusterIP", "NodePort", "LoadBalancer", "ExternalName"),
  ports: list(servicePort),
  selector: map(str(checkLabelValue), checkQualifiedName),
  clusterIP: str(ipOrNone),
  clusterIPs: list(str(ipOrNone)),
  externalName: str(),
  externalTrafficPolicy: oneOf("Cluster", "Local"),
  internalTrafficPolicy: oneOf("Cluster", "Local"),
  sessionAffinity: oneOf("None", "ClientIP"),
  sessionAffinityConfig: obj({ clientIP: obj({ timeoutSeconds: int(1, 86400) }) }),
  ipFamilies: list(oneOf("IPv4", "IPv6")),
  ipFamilyPolicy: oneOf("SingleStack", "PreferDualStack", "RequireDualStack"),
  publishNotReadyAddresses: bool,
  healthCheckNodePort: int(1, 65535, PORT_RANGE_MESSAGE),
  externalIPs: unsupported("external IPs are not routed to the service"),
  loadBalancerIP: str(ipCheck),
  loadBalancerSourceRanges: list(str((v) => (isCidr(v) ? null : `invalid value ${JSON.stringify(v)}: must be a valid CIDR`))),
  loadBalancerClass: str(),
  allocateLoadBalancerNodePorts: bool,
  trafficDistribution: str(),
});

export const serviceShape = obj({ ...typeMeta, metadata: objectMeta, spec: serviceSpec, status: opaque });

const endpointAddress = obj({ ip: str(ipCheck), hostname: str(), nodeName: str(), targetRef: objectReference }, ["ip"]);
const endpointPort = obj(
  { name: str(checkDns1123Label), port: int(1, 65535, PORT_RANGE_MESSAGE), protocol: oneOf(...PROTOCOLS), appProtocol: str() },
  ["port"],
);

export const endpointsShape = obj({
  ...typeMeta,
  metadata: objectMeta,
  subsets: list(obj({ addresses: list(endpointAddress), notReadyAddresses: list(endpointAddress), ports: list(endpointPort) })),
});


