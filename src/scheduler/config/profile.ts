// A scheduling profile (KubeSchedulerProfile, resolved): its scheduler name, the plugins of each
// extension point with score weights, the plugin arguments, and percentageOfNodesToScore.
import { DEFAULT_PLUGIN_ARGS, type PluginArgs } from "./args.js";
import { DEFAULT_PLUGIN_SETS, resolvePlugins, type ResolvedPlugins } from "./plugins.js";

export const DEFAULT_SCHEDULER_NAME = "default-scheduler";

export interface SchedulerProfile {
  readonly schedulerName: string;
  readonly plugins: ResolvedPlugins;
  readonly args: PluginArgs;
  /** 0 = adaptive (50% minus 1% per 125 nodes, at least 5%); null = the configuration-wide value. */
  readonly percentageOfNodesToScore: number | null;
}

/** kube-scheduler 1.30's default profile. */
export function defaultProfile(schedulerName = DEFAULT_SCHEDULER_NAME): SchedulerProfile {
  return { schedulerName, plugins: resolvePlugins(DEFAULT_PLUGIN_SETS), args: DEFAULT_PLUGIN_ARGS, percentageOfNodesToScore: null };
}

/** A whole KubeSchedulerConfiguration as far as scheduling decisions go. */
export interface SchedulerConfiguration {
  /** Configuration-wide percentageOfNodesToScore (default 0 = adaptive). */
  readonly percentageOfNodesToScore: number;
  readonly profiles: readonly SchedulerProfile[];
}

export function defaultConfiguration(): SchedulerConfiguration {
  return { percentageOfNodesToScore: 0, profiles: [defaultProfile()] };
}
