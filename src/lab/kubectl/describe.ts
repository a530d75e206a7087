// `kubectl describe pod` (and node): the sections, field names and tab alignment of kubectl's
// describers (pkg/describe), written as tab-separated lines and aligned with padding 2 the way
// their tabwriter does; the Events table is flushed as its own block.
import type { Container, ContainerState, ContainerStatus, Event, Toleration, Volume } from "kubernetes-types/core/v1.js";
import { podQosClass, type KubeObject } from "../../k8s/index.js";
import { controllerOf } from "../../controllers/index.js";
import { humanDuration, rfc1123z } from "./format.js";
import { tabwrite } from "./tabwriter.js";

export interface DescribeContext {
  /** Seconds since a timestamp. */
  since(timestamp: string | undefined): number;
  events: readonly Event[];
}

const L1 = "  ";
const L2 = "    ";
const L3 = "      ";

class DescribeWriter {
  private block: string[] = [];
  readonly out: string[] = [];

  line(text: string): void {
    this.block.push(text);
  }

  flush(): void {
    this.out.push(...tabwrite(this.block, 2));
    this.block = [];
  }
}

function multiline(w: DescribeWriter, title: string, entries: readonly string[]): void {
  if (entries.length === 0) {
    w.line(`${title}:\t<none>`);
    return;
  }
  entries.forEach((e, i) => w.line(i === 0 ? `${title}:\t${e}` : `\t${e}`));
}

const mapEntries = (m: Readonly<Record<string, string>> | undefined): string[] =>
  Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${m![k]}`);

function tolerationText(t: Toleration): string {
  let s = t.key ?? "";
  if ((t.value ?? "") !== "") s += `=${t.value}`;
  if ((t.effect ?? "") !== "") s += `:${t.effect}`;
  if (t.operator === "Exists" && (t.value ?? "") === "") s += (t.key ?? "") !== "" || (t.effect ?? "") !== "" ? " op=Exists" : "op=Exists";
  if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null) s += ` for ${t.tolerationSeconds}s`;
  return s;
}

function describeState(w: DescribeWriter, name: string, state: ContainerState | undefined): void {
  if (state?.running !== undefined) {
    w.line(`${L2}${name}:\tRunning`);
    w.line(`${L3}Started:\t${rfc1123z(state.running.startedAt)}`);
  } else if (state?.terminated !== undefined) {
    w.line(`${L2}${name}:\tTerminated`);
    if ((state.terminated.reason ?? "") !== "") w.line(`${L3}Reason:\t${state.terminated.reason}`);
    w.line(`${L3}Exit Code:\t${state.terminated.exitCode}`);
  } else {
    w.line(`${L2}${name}:\tWaiting`);
    if ((state?.waiting?.reason ?? "") !== "") w.line(`${L3}Reason:\t${state!.waiting!.reason}`);
  }
}

function describeContainer(w: DescribeWriter, c: Container, status: ContainerStatus | undefined): void {
  w.line(`${L1}${c.name}:`);
  if (status !== undefined) w.line(`${L2}Container ID:\t${status.containerID ?? ""}`);
  w.line(`${L2}Image:\t${c.image ?? ""}`);
  if (status !== undefined) w.line(`${L2}Image ID:\t${status.imageID ?? ""}`);
  const ports = (c.ports ?? []).map((p) => `${p.containerPort}/${p.protocol ?? "TCP"}`);
  const hostPorts = (c.ports ?? []).map((p) => `${p.hostPort ?? 0}/${p.protocol ?? "TCP"}`);
  w.line(ports.length > 1 ? `${L2}Ports:\t${ports.join(", ")}` : `${L2}Port:\t${ports[0] ?? "<none>"}`);
  w.line(hostPorts.length > 1 ? `${L2}Host Ports:\t${hostPorts.join(", ")}` : `${L2}Host Port:\t${hostPorts[0] ?? "<none>"}`);
  if ((c.command ?? []).length > 0) {
    w.line(`${L2}Command:`);
    for (const part of c.command!) w.line(`${L3}${part}`);
  }
  if ((c.args ?? []).length > 0) {
    w.line(`${L2}Args:`);
    for (const part of c.args!) w.line(`${L3}${part}`);
  }
  if (status !== undefined) {
    describeState(w, "State", status.state);
    if (status.lastState?.terminated !== undefined) describeState(w, "Last State", status.lastState);
    w.line(`${L2}Ready:\t${status.ready ? "True" : "False"}`);
    w.line(`${L2}Restart Count:\t${status.restartCount ?? 0}`);
  }
  for (const [title, list] of [
    ["Limits", c.resources?.limits],
    ["Requests", c.resources?.requests],
  ] as const) {
    if (list === undefined || Object.keys(list).length === 0) continue;
    w.line(`${L2}${title}:`);
    for (const k of Object.keys(list).sort()) w.line(`${L3}${k}:\t${list[k]}`);
  }
  const env = c.env ?? [];
  if (env.length === 0) w.line(`${L2}Environment:\t<none>`);
  else {
    w.line(`${L2}Environment:`);
    for (const e of env) w.line(`${L3}${e.name}:\t${e.value ?? ""}`);
  }
  const mounts = [...(c.volumeMounts ?? [])].sort((a, b) => (a.mountPath < b.mountPath ? -1 : 1));
  if (mounts.length === 0) w.line(`${L2}Mounts:\t<none>`);
  else {
    w.line(`${L2}Mounts:`);
    for (const m of mounts) w.line(`${L3}${m.mountPath} from ${m.name} (${m.readOnly === true ? "ro" : "rw"}${m.subPath ? `,path="${m.subPath}"` : ""})`);
  }
}

function describeVolume(w: DescribeWriter, v: Volume): void {
  w.line(`${L1}${v.name}:`);
  if (v.projected !== undefined) {
    w.line(`${L2}Type:\tProjected (a volume that contains injected data from multiple sources)`);
    for (const s of v.projected.sources ?? []) {
      if (s.downwardAPI !== undefined) w.line(`${L2}DownwardAPI:\ttrue`);
      else if (s.configMap !== undefined) {
        w.line(`${L2}ConfigMapName:\t${s.configMap.name ?? ""}`);
        w.line(`${L2}ConfigMapOptional:\t${s.configMap.optional === undefined ? "<nil>" : String(s.configMap.optional)}`);
      } else if (s.serviceAccountToken !== undefined) w.line(`${L2}TokenExpirationSeconds:\t${s.serviceAccountToken.expirationSeconds ?? 3600}`);
    }
  } else if (v.emptyDir !== undefined) {
    w.line(`${L2}Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)`);
    w.line(`${L2}Medium:\t${v.emptyDir.medium ?? ""}`);
    w.line(`${L2}SizeLimit:\t${v.emptyDir.sizeLimit ?? "<unset>"}`);
  } else if (v.hostPath !== undefined) {
    w.line(`${L2}Type:\tHostPath (bare host directory volume)`);
    w.line(`${L2}Path:\t${v.hostPath.path}`);
    w.line(`${L2}HostPathType:\t${v.hostPath.type ?? ""}`);
  } else if (v.configMap !== undefined) {
    w.line(`${L2}Type:\tConfigMap (a volume populated by a ConfigMap)`);
    w.line(`${L2}Name:\t${v.configMap.name ?? ""}`);
    w.line(`${L2}Optional:\t${v.configMap.optional === true ? "true" : "false"}`);
  } else w.line(`${L2}<unknown>`);
}

function describeEvents(w: DescribeWriter, events: readonly Event[], ctx: DescribeContext): void {
  if (events.length === 0) {
    w.line("Events:\t<none>");
    return;
  }
  w.flush();
  w.line("Events:");
  w.line(`${L1}Type\tReason\tAge\tFrom\tMessage`);
  w.line(`${L1}----\t------\t----\t----\t-------`);
  const age = (ts: string | undefined): string => humanDuration(ctx.since(ts));
  const sorted = [...events].sort((a, b) => {
    const ta = a.lastTimestamp ?? a.eventTime ?? "";
    const tb = b.lastTimestamp ?? b.eventTime ?? "";
    return ta < tb ? -1 : ta > tb ? 1 : 0;
  });
  for (const e of sorted) {
    const first = age(e.eventTime ?? e.firstTimestamp);
    const series = e.series;
    const interval =
      series !== undefined && (series.count ?? 0) > 1
        ? `${age(series.lastObservedTime)} (x${series.count} over ${first})`
        : (e.count ?? 1) > 1
          ? `${age(e.lastTimestamp)} (x${e.count} over ${first})`
          : first;
    const from = (e.source?.component ?? "") !== "" ? e.source!.component! : (e.reportingComponent ?? "");
    w.line(`${L1}${e.type ?? ""}\t${e.reason ?? ""}\t${interval}\t${from}\t${(e.message ?? "").trim()}`);
  }
}

export function describePod(pod: KubeObject<"Pod">, ctx: DescribeContext): string[] {
  const w = new DescribeWriter();
  const spec = pod.spec ?? { containers: [] };
  const status = pod.status ?? {};
  w.line(`Name:\t${pod.metadata.name}`);
  w.line(`Namespace:\t${pod.metadata.namespace ?? "default"}`);
  if ((spec.priorityClassName ?? "") !== "") w.line(`Priority Class Name:\t${spec.priorityClassName}`);
  w.line(`Priority:\t${spec.priority ?? 0}`);
  if ((spec.runtimeClassName ?? "") !== "") w.line(`Runtime Class Name:\t${spec.runtimeClassName}`);
  if ((spec.serviceAccountName ?? "") !== "") w.line(`Service Account:\t${spec.serviceAccountName}`);
  w.line(`Node:\t${(spec.nodeName ?? "") === "" ? "<none>" : `${spec.nodeName}/${status.hostIP ?? ""}`}`);
  if (status.startTime !== undefined) w.line(`Start Time:\t${rfc1123z(status.startTime)}`);
  multiline(w, "Labels", mapEntries(pod.metadata.labels));
  const annotations = { ...pod.metadata.annotations };
  delete annotations["kubectl.kubernetes.io/last-applied-configuration"];
  multiline(w, "Annotations", mapEntries(annotations));
  if (pod.metadata.deletionTimestamp !== undefined) {
    w.line(`Status:\tTerminating (lasts ${humanDuration(-ctx.since(pod.metadata.deletionTimestamp))})`);
    w.line(`Termination Grace Period:\t${pod.metadata.deletionGracePeriodSeconds ?? 30}s`);
  } else w.line(`Status:\t${status.phase ?? "Pending"}`);
  if ((status.reason ?? "") !== "") w.line(`Reason:\t${status.reason}`);
  if ((status.message ?? "") !== "") w.line(`Message:\t${status.message}`);
  w.line(`IP:\t${status.podIP ?? ""}`);
  const ips = status.podIPs ?? [];
  if (ips.length === 0) w.line("IPs:\t<none>");
  else {
    w.line("IPs:");
    for (const ip of ips) w.line(`${L1}IP:\t${ip.ip}`);
  }
  const owner = controllerOf(pod);
  if (owner !== undefined) w.line(`Controlled By:\t${owner.kind}/${owner.name}`);
  if ((status.nominatedNodeName ?? "") !== "") w.line(`NominatedNodeName:\t${status.nominatedNodeName}`);
  if ((spec.initContainers ?? []).length > 0) {
    w.line("Init Containers:");
    for (const c of spec.initContainers!) describeContainer(w, c, status.initContainerStatuses?.find((s) => s.name === c.name));
  }
  w.line("Containers:");
  for (const c of spec.containers) describeContainer(w, c, status.containerStatuses?.find((s) => s.name === c.name));
  const conditions = status.conditions ?? [];
  if (conditions.length > 0) {
    w.line("Conditions:");
    w.line(`${L1}Type\tStatus`);
    for (const c of conditions) w.line(`${L1}${c.type} \t${c.status} `);
  }
  const volumes = spec.volumes ?? [];
  if (volumes.length === 0) w.line("Volumes:\t<none>");
  else {
    w.line("Volumes:");
    for (const v of volumes) describeVolume(w, v);
  }
  w.line(`QoS Class:\t${status.qosClass ?? podQosClass(spec)}`);
  multiline(w, "Node-Selectors", mapEntries(spec.nodeSelector));
  const tolerations = [...(spec.tolerations ?? [])].sort((a, b) => ((a.key ?? "") < (b.key ?? "") ? -1 : (a.key ?? "") > (b.key ?? "") ? 1 : 0));
  multiline(w, "Tolerations", tolerations.map(tolerationText));
  describeEvents(w, ctx.events, ctx);
  w.flush();
  return w.out;
}

export function describeNode(node: KubeObject<"Node">, ctx: DescribeContext): string[] {
  const w = new DescribeWriter();
  const labels = node.metadata.labels ?? {};
  const roles = Object.keys(labels)
    .filter((k) => k.startsWith("node-role.kubernetes.io/"))
    .map((k) => k.slice("node-role.kubernetes.io/".length))
    .sort();
  w.line(`Name:\t${node.metadata.name}`);
  w.line(`Roles:\t${roles.length === 0 ? "<none>" : roles.join(",")}`);
  multiline(w, "Labels", mapEntries(labels));
  multiline(w, "Annotations", mapEntries(node.metadata.annotations));
  w.line(`CreationTimestamp:\t${rfc1123z(node.metadata.creationTimestamp)}`);
  multiline(
    w,
    "Taints",
    (node.spec?.taints ?? []).map((t) => `${t.key}${(t.value ?? "") === "" ? "" : `=${t.value}`}:${t.effect}`),
  );
  w.line(`Unschedulable:\t${node.spec?.unschedulable === true ? "true" : "false"}`);
  w.line("Addresses:");
  for (const a of node.status?.addresses ?? []) w.line(`${L1}${a.type}:\t${a.address}`);
  for (const [title, list] of [
    ["Capacity", node.status?.capacity],
    ["Allocatable", node.status?.allocatable],
  ] as const) {
    w.line(`${title}:`);
    for (const k of Object.keys(list ?? {}).sort()) w.line(`${L1}${k}:\t${list![k]}`);
  }
  describeEvents(w, ctx.events, ctx);
  w.flush();
  return w.out;
}
