// The Cluster file of one comparison run, shaped like the published setup: three nodes on one subnet
// (a1 control plane, a2 iperf server, a3 iperf client), the iperf server and client pods pinned with
// nodeName, a NodePort Service in front of the server (its ClusterIP for pod to service, its node
// ports for client to NodePort), and two plain hosts h2/h3 on the same switch: the bare-metal baseline
// (host to host, no Kubernetes on them), and h3 as the client outside the cluster for NodePort runs.
import type { Flavour } from "./flavours.js";

export const SERVER_POD = "default/iperf-server";
export const CLIENT_POD = "default/iperf-client";
export const SERVICE_NAME = "iperf-server";
export const SERVER_NODE = "a2";
export const CLIENT_NODE = "a3";
export const BARE_SERVER = "h2";
export const BARE_CLIENT = "h3";
/** The Service's node ports (fixed, so runs are comparable): iperf3 TCP and UDP, netperf. */
export const NODE_PORTS = { TCP: 30201, UDP: 30202, TCP_RR: 30866 } as const;

/**
 * One-way latency of each underlay link (node NIC to switch port): a cut-through datacenter switch
 * and NIC add a few microseconds; two links make a path.
 */
export const LINK_LATENCY = "5us";

export interface ClusterYamlOptions {
  readonly flavour: Flavour;
  readonly linkGbps: number;
  readonly hostMtu: number;
  readonly podMtu: number;
  readonly seed: number;
  /** spec.underlay.link.queue in bytes; null or absent leaves the Cluster file's default. */
  readonly queueBytes?: number | null;
}

const pod = (name: string, node: string): string => `---
apiVersion: v1
kind: Pod
metadata: {name: ${name}, namespace: default, labels: {app: ${name}}}
spec:
  nodeName: ${node}
  containers: [{name: iperf, image: infrabuilder/benchmark-k8s-cni-2024-01}]
`;

export function clusterYaml(o: ClusterYamlOptions): string {
  const cni = o.flavour.cni;
  return `apiVersion: cnisim.io/v1alpha1
kind: Cluster
metadata: {name: bench-${o.flavour.name}}
spec:
  underlay: {subnet: 10.1.1.0/24, gateway: 10.1.1.1, link: {bandwidth: ${o.linkGbps}Gbps, latency: ${LINK_LATENCY}, mtu: ${o.hostMtu}${o.queueBytes === undefined || o.queueBytes === null ? "" : `, queue: ${o.queueBytes}`}}}
  nodes:
    - {name: a1, ip: 10.1.1.11, role: control-plane}
    - {name: ${SERVER_NODE}, ip: 10.1.1.12}
    - {name: ${CLIENT_NODE}, ip: 10.1.1.13}
  externalHosts:
    - {name: ${BARE_SERVER}, ip: 10.1.1.22}
    - {name: ${BARE_CLIENT}, ip: 10.1.1.23}
  cni: {plugin: ${cni.plugin}, mode: ${cni.mode}, mtu: ${o.podMtu}}
  seed: ${o.seed}
${pod("iperf-server", SERVER_NODE)}${pod("iperf-client", CLIENT_NODE)}---
apiVersion: v1
kind: Service
metadata: {name: ${SERVICE_NAME}, namespace: default}
spec:
  type: NodePort
  selector: {app: iperf-server}
  ports:
    - {name: iperf-tcp, port: 5201, protocol: TCP, nodePort: ${NODE_PORTS.TCP}}
    - {name: iperf-udp, port: 5201, protocol: UDP, nodePort: ${NODE_PORTS.UDP}}
    - {name: netperf, port: 12866, protocol: TCP, nodePort: ${NODE_PORTS.TCP_RR}}
`;
}
