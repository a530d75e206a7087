// MeteredCluster: what resource accounting needs from a running cluster (nodes with their host
// namespace and allocatable, running pods with their namespace, host-side interface and declared
// usage). The cluster runtime implements it; tests and the store-only adapter build it by hand.
import type { DatapathMaps } from "../../datapath/lib/maps.js";
import type { PolicyMap } from "../../datapath/maps/policy.js";
import type { NetDevice } from "../net/device.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import type { DeclaredUsage } from "./usage.js";

/** The TCP counters accounting reads (src/net/tcp TcpCounters has these fields). */
export interface TcpCounterView {
  readonly txSegments: number;
  readonly txBatches: number;
  readonly txBytes: number;
  readonly rxSegments: number;
  readonly rxBatches: number;
  readonly rxBytes: number;
}

export interface MeteredNode {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly allocatable: { readonly cpuMilli: number; readonly memoryBytes: number };
  /** False when the node's kubelet would not answer metrics-server (NotReady): it has no metrics. */
  readonly reporting: boolean;
  /** The node's host network namespace; null when the cluster runs without a network model. */
  readonly ns: NetNamespace | null;
  /** TCP counters of the host namespace (null: SNMP segment counts are used). */
  readonly tcp: TcpCounterView | null;
  /** The eBPF datapath's maps on this node (eBPF personality), else null. */
  readonly maps: DatapathMaps | null;
}

export interface MeteredPod {
  readonly uid: string;
  readonly namespace: string;
  readonly name: string;
  readonly nodeName: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly containers: readonly string[];
  /** Simulated time the pod's containers started (usage accrues from here). */
  readonly startedAtNs: number;
  /** The pod's own network namespace; null for hostNetwork pods or without a network model. */
  readonly ns: NetNamespace | null;
  /** The host side of its interface (veth, cali*), charged to the pod; null when none. */
  readonly hostInterface: NetDevice | null;
  readonly tcp: TcpCounterView | null;
  /** Its compiled NetworkPolicy map, when policy is enforced for it. */
  readonly policyMap: PolicyMap | null;
  /** What its workload declares; null: the idle baseline. */
  readonly usage: DeclaredUsage | null;
  /** Requests its workload has served so far (for per-request usage). */
  requestsServed(): number;
}

export interface MeteredCluster {
  nodes(): readonly MeteredNode[];
  /** Pods whose containers run (what metrics-server reports on). */
  pods(): readonly MeteredPod[];
}
