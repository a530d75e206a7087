// What CoreDNS's kubernetes plugin knows, read live from the object store on every query, so a
// Service created later resolves at once: services (ClusterIP, or a headless service's ready
// endpoint addresses) and namespaces.
import type { ObjectStore } from "../../k8s/store.js";
import { parseIPv4 } from "../../util/ip.js";
import type { ClusterDnsData, ClusterService } from "../workloads/dns/server.js";

export function storeDnsData(store: ObjectStore): ClusterDnsData {
  return {
    get services(): ClusterService[] {
      return store.list("Service").map((s) => {
        const namespace = s.metadata.namespace ?? "default";
        const ip = s.spec?.clusterIP;
        if (ip !== undefined && ip !== "None" && ip !== "") return { name: s.metadata.name, namespace, clusterIP: parseIPv4(ip) ?? 0 };
        const ep = store.get("Endpoints", namespace, s.metadata.name);
        const endpoints = (ep?.subsets ?? []).flatMap((sub) => (sub.addresses ?? []).map((a) => parseIPv4(a.ip) ?? 0)).filter((a) => a !== 0);
        return { name: s.metadata.name, namespace, clusterIP: 0, endpoints };
      });
    },
    get namespaces(): string[] {
      return store.list("Namespace").map((n) => n.metadata.name);
    },
  };
}
