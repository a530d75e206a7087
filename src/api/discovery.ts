// Discovery documents: /version, the legacy forms (/api APIVersions, /apis APIGroupList, per
// group/version APIResourceList) and the aggregated form (apidiscovery.k8s.io v2 / v2beta1
// APIGroupDiscoveryList) that current kubectl asks for first.
import { API_GROUPS, groupVersion, READ_VERBS, resourcesOf, type ApiResource } from "./resources.js";

export const AGGREGATED_VERSIONS = ["v2", "v2beta1"] as const;
export type AggregatedVersion = (typeof AGGREGATED_VERSIONS)[number];

/** The content type that marks an aggregated discovery response for client-go. */
export const aggregatedContentType = (v: AggregatedVersion): string => `application/json;g=apidiscovery.k8s.io;v=${v};as=APIGroupDiscoveryList`;

export function versionInfo(kubernetesVersion: string): Record<string, string> {
  const m = /^v?(\d+)\.(\d+)/.exec(kubernetesVersion);
  return {
    major: m?.[1] ?? "1",
    minor: m?.[2] ?? "0",
    gitVersion: kubernetesVersion.startsWith("v") ? kubernetesVersion : `v${kubernetesVersion}`,
    gitCommit: "cnisim",
    gitTreeState: "clean",
    buildDate: "1970-01-01T00:00:00Z",
    goVersion: "go1.22.2",
    compiler: "gc",
    platform: "linux/amd64",
  };
}

export function apiVersions(serverAddress: string): unknown {
  return { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }] };
}

function apiGroup(name: string, version: string): unknown {
  const gv = { groupVersion: groupVersion(name, version), version };
  return { name, versions: [gv], preferredVersion: gv };
}

export function apiGroupList(): unknown {
  return { kind: "APIGroupList", apiVersion: "v1", groups: API_GROUPS.map((g) => apiGroup(g.name, g.version)) };
}

export function apiGroupDoc(name: string): unknown | undefined {
  const g = API_GROUPS.find((x) => x.name === name);
  return g === undefined ? undefined : { kind: "APIGroup", apiVersion: "v1", ...(apiGroup(g.name, g.version) as object) };
}

function resourceEntry(x: ApiResource): unknown {
  return {
    name: x.resource,
    singularName: x.singular,
    namespaced: x.namespaced,
    kind: x.kind,
    verbs: READ_VERBS,
    ...(x.shortNames.length > 0 ? { shortNames: x.shortNames } : {}),
    ...(x.categories.length > 0 ? { categories: x.categories } : {}),
  };
}

/** APIResourceList of one group version; undefined when it is not served. */
export function apiResourceList(group: string, version: string): unknown | undefined {
  const list = resourcesOf(group, version);
  if (list.length === 0) return undefined;
  return { kind: "APIResourceList", apiVersion: "v1", groupVersion: groupVersion(group, version), resources: list.map(resourceEntry) };
}

function discoveryGroup(name: string, version: string): unknown {
  return {
    metadata: { name, creationTimestamp: null },
    versions: [
      {
        version,
        resources: resourcesOf(name, version).map((x) => ({
          resource: x.resource,
          responseKind: { group: x.group, version: x.version, kind: x.kind },
          scope: x.namespaced ? "Namespaced" : "Cluster",
          singularResource: x.singular,
          verbs: READ_VERBS,
          ...(x.shortNames.length > 0 ? { shortNames: x.shortNames } : {}),
          ...(x.categories.length > 0 ? { categories: x.categories } : {}),
        })),
        freshness: "Current",
      },
    ],
  };
}

/** Aggregated discovery of the core group (/api) or of every named group (/apis). */
export function aggregatedDiscovery(core: boolean, v: AggregatedVersion): unknown {
  const items = core ? [discoveryGroup("", "v1")] : API_GROUPS.map((g) => discoveryGroup(g.name, g.version));
  return { kind: "APIGroupDiscoveryList", apiVersion: `apidiscovery.k8s.io/${v}`, metadata: {}, items };
}
