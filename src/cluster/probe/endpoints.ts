// Probe endpoints by name: pods "ns/name", nodes "node/NAME", external hosts "ext/NAME", services
// "svc/ns/name" (destinations only: the ClusterIP), and the kinds "pods", "nodes", "ext", "svc". The
// kinds "pods" and "svc" leave out namespace kube-system (the cluster's own add-ons, such as CoreDNS,
// which the lab's matrices do not show); its pods and services can still be named one by one.
import type { ClusterRuntime } from "../runtime.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import { parseIPv4 } from "../../util/ip.js";
import { err, ok, type Result } from "../../util/result.js";

export interface ProbeEndpoint {
  /** The name as rows and columns show it. */
  readonly label: string;
  readonly kind: "pod" | "node" | "ext" | "svc";
  /** Where a connection from this endpoint starts (null for services). */
  readonly ns: NetNamespace | null;
  /** The address a connection to this endpoint goes to (a service's ClusterIP). */
  readonly addr: number;
}

export const ENDPOINT_KINDS = ["pods", "nodes", "ext", "svc"] as const;

/** The namespace of the cluster's add-ons, left out of the kinds "pods" and "svc". */
const SYSTEM_NAMESPACE = "kube-system";

/** Every endpoint a name can refer to: the kinds plus the kube-system pods and services. */
function named(rt: ClusterRuntime, kind: (typeof ENDPOINT_KINDS)[number]): ProbeEndpoint[] {
  if (kind === "pods") return rt.pods().map(podEndpoint);
  if (kind === "svc") return services(rt, true);
  return all(rt, kind);
}

function podEndpoint(p: { key: string; ns: NetNamespace; ip: number }): ProbeEndpoint {
  return { label: p.key, kind: "pod", ns: p.ns, addr: p.ip };
}

function services(rt: ClusterRuntime, withSystem: boolean): ProbeEndpoint[] {
  return rt.store.list("Service").flatMap((s) => {
    const namespace = s.metadata.namespace ?? "default";
    const ip = parseIPv4(s.spec?.clusterIP ?? "");
    if (ip === null || (!withSystem && namespace === SYSTEM_NAMESPACE)) return [];
    return [{ label: `svc/${namespace}/${s.metadata.name}`, kind: "svc" as const, ns: null, addr: ip }];
  });
}

function all(rt: ClusterRuntime, kind: (typeof ENDPOINT_KINDS)[number]): ProbeEndpoint[] {
  switch (kind) {
    case "pods":
      return rt.pods().filter((p) => p.namespace !== SYSTEM_NAMESPACE).map(podEndpoint);
    case "nodes":
      return [...rt.nodes.values()].map((n) => ({ label: `node/${n.name}`, kind: "node", ns: n.ns, addr: n.ip }));
    case "ext":
      return [...rt.underlay.hosts.entries()].map(([name, h]) => ({ label: `ext/${name}`, kind: "ext", ns: h.ns, addr: h.ip }));
    case "svc":
      return services(rt, false);
  }
}

/** One endpoint by name (see the header); an error names what was not found. */
export function endpointByName(rt: ClusterRuntime, name: string): Result<ProbeEndpoint, string> {
  const kind = name.startsWith("node/") ? "nodes" : name.startsWith("ext/") ? "ext" : name.startsWith("svc/") ? "svc" : "pods";
  const found = named(rt, kind).find((e) => e.label === name);
  return found === undefined ? err(`no ${kind === "pods" ? "pod" : kind === "nodes" ? "node" : kind === "ext" ? "external host" : "service"} named "${name}"`) : ok(found);
}

/** A comma-separated selection of names and kinds, in the order given, without duplicates. */
export function selectEndpoints(rt: ClusterRuntime, selection: string, role: "from" | "to"): Result<ProbeEndpoint[], string> {
  const out: ProbeEndpoint[] = [];
  const seen = new Set<string>();
  for (const raw of selection.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    let picked: ProbeEndpoint[];
    if ((ENDPOINT_KINDS as readonly string[]).includes(item)) picked = all(rt, item as (typeof ENDPOINT_KINDS)[number]);
    else {
      const e = endpointByName(rt, item);
      if (!e.ok) return e;
      picked = [e.value];
    }
    for (const e of picked) {
      if (role === "from" && e.kind === "svc") return err(`--from ${item}: a service cannot start a connection`);
      if (!seen.has(e.label)) {
        seen.add(e.label);
        out.push(e);
      }
    }
  }
  return out.length === 0 ? err(`--${role} "${selection}" selects nothing`) : ok(out);
}
