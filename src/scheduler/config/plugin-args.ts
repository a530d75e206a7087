// Reading and validating pluginConfig args (validation_pluginargs.go semantics), defaults applied as
// v1's SetDefaults_* do.
import type { NodeAffinity, TopologySpreadConstraint } from "kubernetes-types/core/v1.js";
import {
  DEFAULT_PLUGIN_ARGS,
  DEFAULT_RESOURCES,
  DefaultingType,
  ScoringStrategyType,
  type BalancedAllocationArgs,
  type DefaultPreemptionArgs,
  type InterPodAffinityArgs,
  type NodeAffinityArgs,
  type NodeResourcesFitArgs,
  type PodTopologySpreadArgs,
  type ResourceSpec,
  type UtilizationShapePoint,
} from "./args.js";
import { join, type ConfigReader } from "./reader.js";

const ARG_META = ["apiVersion", "kind"];

function resources(r: ConfigReader, value: unknown, path: string): ResourceSpec[] {
  const out: ResourceSpec[] = [];
  r.list(value, path).forEach((item, i) => {
    const p = `${path}[${i}]`;
    const m = r.map(item, p, ["name", "weight"]);
    if (m === null) return;
    const name = r.str(m["name"], join(p, "name"));
    if (name === undefined || name === "") return r.error(join(p, "name"), "Required value");
    const weight = m["weight"] === undefined || m["weight"] === 0 ? 1 : r.int(m["weight"], join(p, "weight"), 1, 100);
    if (weight !== undefined) out.push({ name, weight });
  });
  return out.length === 0 ? [...DEFAULT_RESOURCES] : out;
}

export function fitArgs(r: ConfigReader, args: unknown, path: string): NodeResourcesFitArgs {
  const m = r.map(args, path, [...ARG_META, "ignoredResources", "ignoredResourceGroups", "scoringStrategy"]);
  const d = DEFAULT_PLUGIN_ARGS.NodeResourcesFit;
  if (m === null) return d;
  const strings = (key: string): string[] =>
    r.list(m[key], join(path, key)).map((v, i) => r.str(v, `${join(path, key)}[${i}]`) ?? "").filter((v) => v !== "");
  const ssPath = join(path, "scoringStrategy");
  const ss = r.map(m["scoringStrategy"], ssPath, ["type", "resources", "requestedToCapacityRatio"]);
  let scoringStrategy = d.scoringStrategy;
  if (ss !== null) {
    const type = r.str(ss["type"], join(ssPath, "type")) ?? "";
    const types = Object.values(ScoringStrategyType) as string[];
    if (!types.includes(type)) {
      r.error(join(ssPath, "type"), `Unsupported value: ${JSON.stringify(type)}: supported values: ${types.map((t) => JSON.stringify(t)).join(", ")}`);
    }
    const shape: UtilizationShapePoint[] = [];
    const rtcrPath = join(ssPath, "requestedToCapacityRatio");
    const rtcr = r.map(ss["requestedToCapacityRatio"], rtcrPath, ["shape"]);
    if (type === ScoringStrategyType.REQUESTED_TO_CAPACITY_RATIO) {
      const shapePath = join(rtcrPath, "shape");
      const points = r.list(rtcr?.["shape"], shapePath);
      if (points.length === 0) r.error(shapePath, "Required value: at least one point must be specified");
      points.forEach((item, i) => {
        const p = `${shapePath}[${i}]`;
        const pm = r.map(item, p, ["utilization", "score"]);
        if (pm === null) return;
        const utilization = r.int(pm["utilization"] ?? 0, join(p, "utilization"), 0, 100);
        const score = r.int(pm["score"] ?? 0, join(p, "score"), 0, 10);
        if (utilization === undefined || score === undefined) return;
        const prev = shape[shape.length - 1];
        if (prev !== undefined && utilization <= prev.utilization) {
          r.error(join(p, "utilization"), `Invalid value: ${utilization}: utilization values must be sorted in increasing order`);
        }
        shape.push({ utilization, score });
      });
    }
    scoringStrategy = { type: type as ScoringStrategyType, resources: resources(r, ss["resources"], join(ssPath, "resources")), shape };
  }
  return { ignoredResources: strings("ignoredResources"), ignoredResourceGroups: strings("ignoredResourceGroups"), scoringStrategy };
}

export function balancedArgs(r: ConfigReader, args: unknown, path: string): BalancedAllocationArgs {
  const m = r.map(args, path, [...ARG_META, "resources"]);
  return m === null ? DEFAULT_PLUGIN_ARGS.NodeResourcesBalancedAllocation : { resources: resources(r, m["resources"], join(path, "resources")) };
}

export function interPodAffinityArgs(r: ConfigReader, args: unknown, path: string): InterPodAffinityArgs {
  const m = r.map(args, path, [...ARG_META, "hardPodAffinityWeight", "ignorePreferredTermsOfExistingPods"]);
  const d = DEFAULT_PLUGIN_ARGS.InterPodAffinity;
  if (m === null) return d;
  return {
    hardPodAffinityWeight: r.int(m["hardPodAffinityWeight"], join(path, "hardPodAffinityWeight"), 0, 100) ?? d.hardPodAffinityWeight,
    ignorePreferredTermsOfExistingPods: r.bool(m["ignorePreferredTermsOfExistingPods"], join(path, "ignorePreferredTermsOfExistingPods")) ?? false,
  };
}

export function podTopologySpreadArgs(r: ConfigReader, args: unknown, path: string): PodTopologySpreadArgs {
  const m = r.map(args, path, [...ARG_META, "defaultConstraints", "defaultingType"]);
  if (m === null) return DEFAULT_PLUGIN_ARGS.PodTopologySpread;
  const typePath = join(path, "defaultingType");
  const type = r.str(m["defaultingType"], typePath) ?? DefaultingType.SYSTEM;
  if (type !== DefaultingType.SYSTEM && type !== DefaultingType.LIST) {
    r.error(typePath, `Unsupported value: ${JSON.stringify(type)}: supported values: "System", "List"`);
  }
  const cPath = join(path, "defaultConstraints");
  const constraints: TopologySpreadConstraint[] = [];
  const seen = new Set<string>();
  r.list(m["defaultConstraints"], cPath).forEach((item, i) => {
    const p = `${cPath}[${i}]`;
    const c = r.map(item, p, ["maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains", "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys"]);
    if (c === null) return;
    const maxSkew = r.int(c["maxSkew"], join(p, "maxSkew"), 1, 2147483647);
    if (c["maxSkew"] === undefined) r.error(join(p, "maxSkew"), "Required value");
    const topologyKey = r.str(c["topologyKey"], join(p, "topologyKey")) ?? "";
    if (topologyKey === "") r.error(join(p, "topologyKey"), "Required value: can not be empty");
    const when = r.str(c["whenUnsatisfiable"], join(p, "whenUnsatisfiable")) ?? "";
    if (when !== "DoNotSchedule" && when !== "ScheduleAnyway") {
      r.error(join(p, "whenUnsatisfiable"), `Unsupported value: ${JSON.stringify(when)}: supported values: "DoNotSchedule", "ScheduleAnyway"`);
    }
    if (c["labelSelector"] !== undefined) r.error(join(p, "labelSelector"), "Forbidden: constraint must not define a selector, as they deduced for each pod");
    const key = `${topologyKey}/${when}`;
    if (seen.has(key)) r.error(p, `Duplicate value: {${JSON.stringify(topologyKey)}, ${JSON.stringify(when)}}`);
    seen.add(key);
    if (maxSkew !== undefined) constraints.push({ ...(c as object), maxSkew, topologyKey, whenUnsatisfiable: when } as TopologySpreadConstraint);
  });
  if (type === DefaultingType.SYSTEM && constraints.length > 0) r.error(cPath, "Invalid value: when .defaultingType is \"System\", .defaultConstraints must be empty");
  return { defaultConstraints: constraints, defaultingType: type as DefaultingType };
}

export function nodeAffinityArgs(r: ConfigReader, args: unknown, path: string): NodeAffinityArgs {
  const m = r.map(args, path, [...ARG_META, "addedAffinity"]);
  if (m === null || m["addedAffinity"] === undefined) return {};
  const a = r.map(m["addedAffinity"], join(path, "addedAffinity"), ["requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"]);
  return a === null ? {} : { addedAffinity: a as NodeAffinity };
}

export function defaultPreemptionArgs(r: ConfigReader, args: unknown, path: string): DefaultPreemptionArgs {
  const m = r.map(args, path, [...ARG_META, "minCandidateNodesPercentage", "minCandidateNodesAbsolute"]);
  const d = DEFAULT_PLUGIN_ARGS.DefaultPreemption;
  if (m === null) return d;
  const pct = r.int(m["minCandidateNodesPercentage"], join(path, "minCandidateNodesPercentage"), 0, 100) ?? d.minCandidateNodesPercentage;
  const abs = r.int(m["minCandidateNodesAbsolute"], join(path, "minCandidateNodesAbsolute"), 0, 2147483647) ?? d.minCandidateNodesAbsolute;
  if (pct === 0 && abs === 0) r.error(path, "Invalid value: both minCandidateNodesPercentage and minCandidateNodesAbsolute cannot be zero");
  return { minCandidateNodesPercentage: pct, minCandidateNodesAbsolute: abs };
}
