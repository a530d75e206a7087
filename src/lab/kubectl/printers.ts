// `kubectl get` tables: the columns the API server's table convertor (pkg/printers/internalversion)
// gives each kind, with the -o wide extras, as kubectl prints them.
import type { Container } from "kubernetes-types/core/v1.js";
import type { KindName, KubeObject } from "../../k8s/index.js";
import { formatMap, formatSelector, orNone } from "./format.js";

export interface PrintContext {
  /** Age column text of a timestamp. */
  age(timestamp: string | undefined): string;
}

export interface TablePrinter {
  readonly header: readonly string[];
  readonly wideHeader: readonly string[];
  row(obj: KubeObject, ctx: PrintContext, wide: boolean): string[];
}

type Row<K extends KindName> = (obj: KubeObject<K>, ctx: PrintContext, wide: boolean) => string[];

function printer<K extends KindName>(header: readonly string[], wideHeader: readonly string[], row: Row<K>): TablePrinter {
  return { header, wideHeader, row: row as unknown as TablePrinter["row"] };
}

/** printPod's STATUS column. */
export function podStatusText(pod: KubeObject<"Pod">): string {
  let reason: string = pod.status?.phase ?? "Pending";
  if ((pod.status?.reason ?? "") !== "") reason = pod.status!.reason!;
  const gated = pod.status?.conditions?.find((c) => c.type === "PodScheduled" && c.reason === "SchedulingGated");
  if (gated !== undefined) reason = "SchedulingGated";
  let hasRunning = false;
  const statuses = pod.status?.containerStatuses ?? [];
  for (let i = statuses.length - 1; i >= 0; i--) {
    const c = statuses[i]!;
    if (c.state?.waiting?.reason !== undefined && c.state.waiting.reason !== "") reason = c.state.waiting.reason;
    else if (c.state?.terminated?.reason !== undefined && c.state.terminated.reason !== "") reason = c.state.terminated.reason;
    else if (c.state?.terminated !== undefined) {
      reason = c.state.terminated.signal ? `Signal:${c.state.terminated.signal}` : `ExitCode:${c.state.terminated.exitCode}`;
    } else if (c.ready === true && c.state?.running !== undefined) hasRunning = true;
  }
  if (reason === "Completed" && hasRunning) {
    reason = pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true ? "Running" : "NotReady";
  }
  if (pod.metadata.deletionTimestamp !== undefined) reason = pod.status?.reason === "NodeLost" ? "Unknown" : "Terminating";
  return reason;
}

const podRow: Row<"Pod"> = (pod, ctx, wide) => {
  const statuses = pod.status?.containerStatuses ?? [];
  const ready = statuses.filter((c) => c.ready === true && c.state?.running !== undefined).length;
  const restarts = statuses.reduce((n, c) => n + (c.restartCount ?? 0), 0);
  const row = [pod.metadata.name, `${ready}/${pod.spec?.containers.length ?? 0}`, podStatusText(pod), String(restarts), ctx.age(pod.metadata.creationTimestamp)];
  if (!wide) return row;
  const gates = pod.spec?.readinessGates ?? [];
  const gatesText =
    gates.length === 0 ? "<none>" : `${gates.filter((g) => pod.status?.conditions?.some((c) => c.type === g.conditionType && c.status === "True")).length}/${gates.length}`;
  return [...row, orNone(pod.status?.podIP), orNone(pod.spec?.nodeName), orNone(pod.status?.nominatedNodeName), gatesText];
};

const ROLE_PREFIX = "node-role.kubernetes.io/";

const nodeRow: Row<"Node"> = (node, ctx, wide) => {
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  const states = [ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "NotReady"];
  if (node.spec?.unschedulable === true) states.push("SchedulingDisabled");
  const labels = node.metadata.labels ?? {};
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(labels)) {
    if (k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length) roles.add(k.slice(ROLE_PREFIX.length));
    else if (k === "kubernetes.io/role" && v !== "") roles.add(v);
  }
  const info = node.status?.nodeInfo;
  const row = [node.metadata.name, states.join(","), roles.size === 0 ? "<none>" : [...roles].sort().join(","), ctx.age(node.metadata.creationTimestamp), info?.kubeletVersion ?? ""];
  if (!wide) return row;
  const address = (type: string): string => orNone(node.status?.addresses?.find((a) => a.type === type)?.address);
  const unknown = (s: string | undefined): string => (s === undefined || s === "" ? "<unknown>" : s);
  return [...row, address("InternalIP"), address("ExternalIP"), unknown(info?.osImage), unknown(info?.kernelVersion), unknown(info?.containerRuntimeVersion)];
};

const containersAndImages = (containers: readonly Container[] | undefined): string[] => [
  (containers ?? []).map((c) => c.name).join(","),
  (containers ?? []).map((c) => c.image ?? "").join(","),
];

const serviceRow: Row<"Service"> = (svc, ctx, wide) => {
  const spec = svc.spec ?? {};
  const type = spec.type ?? "ClusterIP";
  let external = "<none>";
  if (type === "LoadBalancer") {
    const ingress = svc.status?.loadBalancer?.ingress ?? [];
    external = ingress.length === 0 ? "<pending>" : ingress.map((i) => i.ip ?? i.hostname ?? "").join(",");
  } else if ((spec.externalIPs ?? []).length > 0) external = spec.externalIPs!.join(",");
  if (type === "ExternalName") external = spec.externalName ?? "<none>";
  const ports = (spec.ports ?? []).map((p) => (p.nodePort !== undefined && p.nodePort !== 0 ? `${p.port}:${p.nodePort}/${p.protocol ?? "TCP"}` : `${p.port}/${p.protocol ?? "TCP"}`));
  const row = [svc.metadata.name, type, orNone(spec.clusterIP), external, ports.length === 0 ? "<none>" : ports.join(","), ctx.age(svc.metadata.creationTimestamp)];
  return wide ? [...row, formatMap(spec.selector)] : row;
};

const deploymentRow: Row<"Deployment"> = (d, ctx, wide) => {
  const s = d.status ?? {};
  const row = [d.metadata.name, `${s.readyReplicas ?? 0}/${d.spec?.replicas ?? 1}`, String(s.updatedReplicas ?? 0), String(s.availableReplicas ?? 0), ctx.age(d.metadata.creationTimestamp)];
  return wide ? [...row, ...containersAndImages(d.spec?.template.spec?.containers), formatSelector(d.spec?.selector)] : row;
};

const replicaSetRow: Row<"ReplicaSet"> = (rs, ctx, wide) => {
  const row = [rs.metadata.name, String(rs.spec?.replicas ?? 1), String(rs.status?.replicas ?? 0), String(rs.status?.readyReplicas ?? 0), ctx.age(rs.metadata.creationTimestamp)];
  return wide ? [...row, ...containersAndImages(rs.spec?.template?.spec?.containers), formatSelector(rs.spec?.selector)] : row;
};

const daemonSetRow: Row<"DaemonSet"> = (ds, ctx, wide) => {
  const s = ds.status;
  const row = [
    ds.metadata.name,
    String(s?.desiredNumberScheduled ?? 0),
    String(s?.currentNumberScheduled ?? 0),
    String(s?.numberReady ?? 0),
    String(s?.updatedNumberScheduled ?? 0),
    String(s?.numberAvailable ?? 0),
    formatMap(ds.spec?.template.spec?.nodeSelector),
    ctx.age(ds.metadata.creationTimestamp),
  ];
  return wide ? [...row, ...containersAndImages(ds.spec?.template.spec?.containers), formatSelector(ds.spec?.selector)] : row;
};

const PRINTERS: Partial<Record<KindName, TablePrinter>> = {
  Pod: printer(["NAME", "READY", "STATUS", "RESTARTS", "AGE"], ["IP", "NODE", "NOMINATED NODE", "READINESS GATES"], podRow),
  Node: printer(["NAME", "STATUS", "ROLES", "AGE", "VERSION"], ["INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"], nodeRow),
  Namespace: printer<"Namespace">(["NAME", "STATUS", "AGE"], [], (ns, ctx) => [ns.metadata.name, ns.status?.phase ?? "Active", ctx.age(ns.metadata.creationTimestamp)]),
  Service: printer(["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"], ["SELECTOR"], serviceRow),
  Endpoints: printer<"Endpoints">(["NAME", "ENDPOINTS", "AGE"], [], (ep, ctx) => {
    const list = (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).flatMap((a) => ((s.ports ?? []).length === 0 ? [a.ip] : s.ports!.map((p) => `${a.ip}:${p.port}`))));
    const text = list.length === 0 ? "<none>" : list.length > 3 ? `${list.slice(0, 3).join(",")} + ${list.length - 3} more...` : list.join(",");
    return [ep.metadata.name, text, ctx.age(ep.metadata.creationTimestamp)];
  }),
  Deployment: printer(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], ["CONTAINERS", "IMAGES", "SELECTOR"], deploymentRow),
  ReplicaSet: printer(["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["CONTAINERS", "IMAGES", "SELECTOR"], replicaSetRow),
  DaemonSet: printer(["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"], ["CONTAINERS", "IMAGES", "SELECTOR"], daemonSetRow),
  NetworkPolicy: printer<"NetworkPolicy">(["NAME", "POD-SELECTOR", "AGE"], [], (np, ctx) => [np.metadata.name, formatSelector(np.spec?.podSelector), ctx.age(np.metadata.creationTimestamp)]),
  PodDisruptionBudget: printer<"PodDisruptionBudget">(["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"], [], (pdb, ctx) => [
    pdb.metadata.name,
    pdb.spec?.minAvailable === undefined ? "N/A" : String(pdb.spec.minAvailable),
    pdb.spec?.maxUnavailable === undefined ? "N/A" : String(pdb.spec.maxUnavailable),
    String(pdb.status?.disruptionsAllowed ?? 0),
    ctx.age(pdb.metadata.creationTimestamp),
  ]),
  ConfigMap: printer<"ConfigMap">(["NAME", "DATA", "AGE"], [], (cm, ctx) => [
    cm.metadata.name,
    String(Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length),
    ctx.age(cm.metadata.creationTimestamp),
  ]),
  Event: printer<"Event">(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], [], (e, ctx) => [
    ctx.age(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp),
    e.type ?? "",
    e.reason ?? "",
    `${(e.involvedObject.kind ?? "").toLowerCase()}/${e.involvedObject.name ?? ""}`,
    (e.message ?? "").trim(),
  ]),
};

export function tablePrinter(kind: KindName): TablePrinter | undefined {
  return PRINTERS[kind];
}
