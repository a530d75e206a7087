// Loads a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) file: profiles with their plugin
// sets merged into the defaults and expanded per extension point, weights, plugin args and
// percentageOfNodesToScore. Errors name file:line:col and the field path.
import { sortDiagnostics, type Diagnostic } from "../../k8s/diagnostics.js";
import { err, ok, type Result } from "../../util/result.js";
import { DEFAULT_PLUGIN_ARGS, type PluginArgs } from "./args.js";
import { balancedArgs, defaultPreemptionArgs, fitArgs, interPodAffinityArgs, nodeAffinityArgs, podTopologySpreadArgs } from "./plugin-args.js";
import {
  DEFAULT_PLUGIN_SETS,
  emptyPluginSets,
  EXTENSION_POINTS,
  mergePluginSets,
  PLUGIN_EXTENSION_POINTS,
  resolvePlugins,
  type PluginRef,
  type PluginSet,
  type PluginSets,
} from "./plugins.js";
import { DEFAULT_SCHEDULER_NAME, type SchedulerConfiguration, type SchedulerProfile } from "./profile.js";
import { ConfigReader, join } from "./reader.js";

export const CONFIG_API_VERSION = "kubescheduler.config.k8s.io/v1";
export const CONFIG_KIND = "KubeSchedulerConfiguration";

/** Top-level fields kube-scheduler accepts that do not change scheduling decisions here. */
const IGNORED_TOP = ["parallelism", "leaderElection", "clientConnection", "enableProfiling", "enableContentionProfiling", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "delayCacheUntilActive"];

function pluginSet(r: ConfigReader, value: unknown, path: string): PluginSet {
  const m = r.map(value, path, ["enabled", "disabled"]);
  if (m === null) return { enabled: [], disabled: [] };
  const enabled: PluginRef[] = [];
  r.list(m["enabled"], join(path, "enabled")).forEach((item, i) => {
    const p = `${join(path, "enabled")}[${i}]`;
    const e = r.map(item, p, ["name", "weight"]);
    if (e === null) return;
    const name = r.str(e["name"], join(p, "name")) ?? "";
    if (!(name in PLUGIN_EXTENSION_POINTS)) return r.error(join(p, "name"), `${JSON.stringify(name)} does not exist (not a kube-scheduler 1.30 in-tree plugin)`);
    enabled.push({ name, weight: r.int(e["weight"], join(p, "weight"), 0, 2147483647) ?? 0 });
  });
  const disabled: string[] = [];
  r.list(m["disabled"], join(path, "disabled")).forEach((item, i) => {
    const p = `${join(path, "disabled")}[${i}]`;
    const d = r.map(item, p, ["name", "weight"]);
    const name = d === null ? "" : (r.str(d["name"], join(p, "name")) ?? "");
    if (name !== "*" && !(name in PLUGIN_EXTENSION_POINTS)) return r.error(join(p, "name"), `${JSON.stringify(name)} does not exist (not a kube-scheduler 1.30 in-tree plugin)`);
    disabled.push(name);
  });
  return { enabled, disabled };
}

function pluginSets(r: ConfigReader, value: unknown, path: string): PluginSets {
  const m = r.map(value, path, ["multiPoint", "preEnqueue", ...EXTENSION_POINTS]);
  const sets: Record<string, PluginSet> = { ...emptyPluginSets() };
  if (m === null) return sets as PluginSets;
  sets["multiPoint"] = pluginSet(r, m["multiPoint"], join(path, "multiPoint"));
  pluginSet(r, m["preEnqueue"], join(path, "preEnqueue")); // SchedulingGates only; nothing to model
  for (const e of EXTENSION_POINTS) sets[e] = pluginSet(r, m[e], join(path, e));
  return sets as PluginSets;
}

function pluginArgs(r: ConfigReader, value: unknown, path: string): PluginArgs {
  const args: { -readonly [K in keyof PluginArgs]: PluginArgs[K] } = { ...DEFAULT_PLUGIN_ARGS };
  const seen = new Set<string>();
  r.list(value, path).forEach((item, i) => {
    const p = `${path}[${i}]`;
    const m = r.map(item, p, ["name", "args"]);
    if (m === null) return;
    const name = r.str(m["name"], join(p, "name")) ?? "";
    if (seen.has(name)) return r.error(join(p, "name"), `Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
    const ap = join(p, "args");
    switch (name) {
      case "NodeResourcesFit":
        args.NodeResourcesFit = fitArgs(r, m["args"], ap);
        break;
      case "NodeResourcesBalancedAllocation":
        args.NodeResourcesBalancedAllocation = balancedArgs(r, m["args"], ap);
        break;
      case "InterPodAffinity":
        args.InterPodAffinity = interPodAffinityArgs(r, m["args"], ap);
        break;
      case "PodTopologySpread":
        args.PodTopologySpread = podTopologySpreadArgs(r, m["args"], ap);
        break;
      case "NodeAffinity":
        args.NodeAffinity = nodeAffinityArgs(r, m["args"], ap);
        break;
      case "DefaultPreemption":
        args.DefaultPreemption = defaultPreemptionArgs(r, m["args"], ap);
        break;
      default:
        if (!(name in PLUGIN_EXTENSION_POINTS)) r.error(join(p, "name"), `${JSON.stringify(name)} does not exist (not a kube-scheduler 1.30 in-tree plugin)`);
        else r.warn(ap, `args of ${name} are not modelled by cnisim; ignored`);
    }
  });
  return args;
}

function profile(r: ConfigReader, value: unknown, path: string, only: boolean): SchedulerProfile | null {
  const m = r.map(value, path, ["schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig"]);
  if (m === null) return null;
  // Only a lone profile gets the default name.
  const schedulerName = r.str(m["schedulerName"], join(path, "schedulerName")) ?? (only ? DEFAULT_SCHEDULER_NAME : "");
  if (schedulerName === "") r.error(join(path, "schedulerName"), "Required value");
  const custom = pluginSets(r, m["plugins"], join(path, "plugins"));
  const plugins = resolvePlugins(mergePluginSets(DEFAULT_PLUGIN_SETS, custom));
  const bindPath = join(path, "plugins.bind");
  if (plugins.points.bind.length === 0) r.error(bindPath, "Invalid value: at least one bind plugin is needed");
  if (plugins.points.queueSort.length !== 1) r.error(join(path, "plugins.queueSort"), "Invalid value: exactly one queue sort plugin is needed");
  return {
    schedulerName,
    plugins,
    args: pluginArgs(r, m["pluginConfig"], join(path, "pluginConfig")),
    percentageOfNodesToScore: r.int(m["percentageOfNodesToScore"], join(path, "percentageOfNodesToScore"), 0, 100) ?? null,
  };
}

/** The whole configuration; diagnostics (errors and warnings) when it is not valid. */
export function loadSchedulerConfiguration(text: string, fileName: string): Result<{ configuration: SchedulerConfiguration; warnings: Diagnostic[] }, Diagnostic[]> {
  const r = new ConfigReader(fileName, CONFIG_KIND);
  const root = r.map(r.parse(text), "", ["apiVersion", "kind", "percentageOfNodesToScore", "profiles", "extenders", ...IGNORED_TOP]);
  if (root === null) {
    if (!r.failed) r.error("", "must be a map (a KubeSchedulerConfiguration)");
    return err(sortDiagnostics(r.diagnostics, [fileName]));
  }
  if (root["apiVersion"] !== CONFIG_API_VERSION) r.error("apiVersion", `must be ${JSON.stringify(CONFIG_API_VERSION)}, not ${JSON.stringify(root["apiVersion"] ?? "")}`);
  if (root["kind"] !== CONFIG_KIND) r.error("kind", `must be ${JSON.stringify(CONFIG_KIND)}, not ${JSON.stringify(root["kind"] ?? "")}`);
  if (r.list(root["extenders"], "extenders").length > 0) r.warn("extenders", "scheduler extenders are not modelled by cnisim; ignored");
  const percentage = r.int(root["percentageOfNodesToScore"], "percentageOfNodesToScore", 0, 100) ?? 0;
  const given = r.list(root["profiles"], "profiles");
  const profiles: SchedulerProfile[] = [];
  const names = new Set<string>();
  (given.length === 0 ? [{}] : given).forEach((item, i) => {
    const p = profile(r, item, `profiles[${i}]`, given.length <= 1);
    if (p === null) return;
    if (names.has(p.schedulerName)) r.error(`profiles[${i}].schedulerName`, `Duplicate value: ${JSON.stringify(p.schedulerName)}`);
    names.add(p.schedulerName);
    profiles.push(p);
  });
  const diagnostics = sortDiagnostics(r.diagnostics, [fileName]);
  if (r.failed) return err(diagnostics);
  return ok({ configuration: { percentageOfNodesToScore: percentage, profiles }, warnings: diagnostics });
}

/** The first profile of a configuration, with the configuration-wide percentageOfNodesToScore folded in. */
export function loadSchedulerProfile(text: string, fileName: string): Result<SchedulerProfile, Diagnostic[]> {
  const r = loadSchedulerConfiguration(text, fileName);
  if (!r.ok) return r;
  const { configuration } = r.value;
  const first = configuration.profiles[0]!;
  return ok({ ...first, percentageOfNodesToScore: first.percentageOfNodesToScore ?? configuration.percentageOfNodesToScore });
}
