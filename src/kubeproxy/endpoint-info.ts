// Endpoints as kube-proxy sees them (EndpointSliceCache): per service port, the unique "ip:port"
// endpoints of all the service's IPv4 EndpointSlices with their conditions and locality, sorted by
// that string as endpointsMapFromEndpointInfo sorts them.
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import { canonicalIPv4 } from "./ip-text.js";
import { servicePortNameString } from "./iptables/chain-names.js";
import { servicePortKey, type L4Protocol } from "./service-port.js";

export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

export interface EndpointInfo {
  readonly ip: string;
  readonly port: number;
  /** "ip:port" (Endpoint.String()). */
  readonly endpoint: string;
  readonly nodeName: string;
  readonly isLocal: boolean;
  readonly ready: boolean;
  readonly serving: boolean;
  readonly terminating: boolean;
}

/** servicePortKey -> endpoints sorted by "ip:port". */
export type EndpointsMap = ReadonlyMap<string, readonly EndpointInfo[]>;

const PROTOCOLS: Readonly<Record<string, L4Protocol>> = { TCP: "tcp", UDP: "udp", SCTP: "sctp" };

/** Groups the endpoints of every slice by service port; `nodeName` decides which are local. */
export function buildEndpointsMap(slices: readonly EndpointSlice[], nodeName: string): EndpointsMap {
  const byPort = new Map<string, Map<string, EndpointInfo>>();
  for (const slice of slices) {
    if (slice.addressType !== "IPv4") continue;
    const service = slice.metadata?.labels?.[SERVICE_NAME_LABEL] ?? "";
    const namespace = slice.metadata?.namespace ?? "";
    if (service === "" || namespace === "") continue;
    for (const port of slice.ports ?? []) {
      if (port.name === undefined || port.port === undefined || port.port === 0) continue;
      const protocol = PROTOCOLS[port.protocol ?? "TCP"];
      if (protocol === undefined) continue;
      const key = servicePortKey(servicePortNameString(namespace, service, port.name), protocol);
      let set = byPort.get(key);
      if (set === undefined) {
        set = new Map();
        byPort.set(key, set);
      }
      for (const ep of slice.endpoints) {
        const first = ep.addresses[0];
        const ip = first === undefined ? null : canonicalIPv4(first);
        if (ip === null) continue;
        const node = ep.nodeName ?? "";
        const terminating = ep.conditions?.terminating === true;
        const info: EndpointInfo = {
          ip,
          port: port.port,
          endpoint: `${ip}:${port.port}`,
          nodeName: node,
          isLocal: node !== "" && node === nodeName,
          ready: ep.conditions?.ready !== false,
          serving: ep.conditions?.serving !== false,
          terminating,
        };
        // The same IP in two slices: prefer the one that is not terminating.
        if (!set.has(info.endpoint) || !terminating) set.set(info.endpoint, info);
      }
    }
  }
  const out = new Map<string, readonly EndpointInfo[]>();
  for (const [key, set] of byPort) {
    if (set.size === 0) continue;
    out.set(key, [...set.values()].sort((a, b) => (a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0)));
  }
  return out;
}
