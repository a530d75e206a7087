// One profile's plugins wired per extension point and the framework's Run* functions
// (runtime/framework.go): PreFilter results merged, Filter stopping at the first rejection, PostFilter,
// PreScore skips, Score normalized per plugin and weighted.
import type { SchedulerProfile } from "../config/profile.js";
import type { NodeInfo } from "../node-info.js";
import type { PodInfo } from "../pod-info.js";
import { defaultPreemptionPlugin } from "../plugins/default-preemption.js";
import { interPodAffinityPlugin } from "../plugins/interpodaffinity/plugin.js";
import { PluginName } from "../plugins/names.js";
import { nodeAffinityPlugin } from "../plugins/node-affinity.js";
import { nodeNamePlugin } from "../plugins/node-name.js";
import { nodePortsPlugin } from "../plugins/node-ports.js";
import { nodeUnschedulablePlugin } from "../plugins/node-unschedulable.js";
import { balancedAllocationPlugin } from "../plugins/noderesources/balanced-allocation.js";
import { fitPlugin } from "../plugins/noderesources/fit.js";
import { podTopologySpreadPlugin } from "../plugins/podtopologyspread/plugin.js";
import { taintTolerationPlugin } from "../plugins/taint-toleration.js";
import { Code, isRejected, status, type Status } from "../status.js";
import { MAX_NODE_SCORE, type CycleState, type FilterRunner, type Handle, type Plugin, type PostFilterOutcome } from "./plugin.js";

export interface PreFilterRun {
  readonly status: Status | null;
  /** null = every node. */
  readonly nodeNames: ReadonlySet<string> | null;
}

export interface ScoreRun {
  /** Weighted sum per node (same order as the nodes given). */
  readonly totals: number[];
  /** Normalized (unweighted) score per plugin, per node. */
  readonly byPlugin: ReadonlyMap<string, readonly number[]>;
}

export class Framework implements FilterRunner {
  readonly preFilter: readonly Plugin[];
  readonly filter: readonly Plugin[];
  readonly postFilter: readonly Plugin[];
  readonly preScore: readonly Plugin[];
  readonly score: readonly { plugin: Plugin; weight: number }[];
  private readonly extensions: readonly Plugin[];

  constructor(
    readonly profile: SchedulerProfile,
    handle: Handle,
  ) {
    const instances = new Map<string, Plugin>();
    const make = (name: string): Plugin | null => {
      const hit = instances.get(name);
      if (hit !== undefined) return hit;
      const p = createPlugin(name, handle, this, profile);
      if (p !== null) instances.set(name, p);
      return p;
    };
    const at = (names: readonly string[]): Plugin[] => names.map(make).filter((p): p is Plugin => p !== null);
    const pts = profile.plugins.points;
    this.preFilter = at(pts.preFilter);
    this.filter = at(pts.filter);
    this.postFilter = at(pts.postFilter);
    this.preScore = at(pts.preScore);
    this.score = at(pts.score).map((plugin) => ({ plugin, weight: profile.plugins.weights[plugin.name] ?? 1 }));
    this.extensions = this.preFilter.filter((p) => p.addPod !== undefined || p.removePod !== undefined);
  }

  /** RunPreFilterPlugins. */
  runPreFilter(state: CycleState): PreFilterRun {
    let names: Set<string> | null = null;
    const narrowing: string[] = [];
    for (const p of this.preFilter) {
      const out = p.preFilter!(state);
      const s = out.status;
      if (s !== null && s.code === Code.SKIP) {
        state.skipFilter.add(p.name);
        continue;
      }
      if (s !== null && s.code !== Code.SUCCESS) return { status: { ...s, plugin: p.name }, nodeNames: null };
      if (out.nodeNames !== undefined) {
        narrowing.push(p.name);
        names = intersect(names, out.nodeNames);
        if (names.size === 0) {
          const msg =
            narrowing.length === 1 ? `node(s) didn't satisfy plugin ${narrowing[0]}` : `node(s) didn't satisfy plugin(s) [${narrowing.join(" ")}] simultaneously`;
          return { status: status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "", msg), nodeNames: names };
        }
      }
    }
    return { status: null, nodeNames: names };
  }

  /** The filter plugins this cycle runs (those whose PreFilter did not return Skip). */
  activeFilters(state: CycleState): readonly Plugin[] {
    return state.skipFilter.size === 0 ? this.filter : this.filter.filter((p) => !state.skipFilter.has(p.name));
  }

  /** RunFilterPlugins: the first rejection, with the plugin that made it; null when the node fits. */
  runFilters(state: CycleState, node: NodeInfo, active: readonly Plugin[] = this.activeFilters(state)): Status | null {
    for (let i = 0; i < active.length; i++) {
      const p = active[i]!;
      const s = p.filter!(state, node);
      if (s === null) continue;
      return isRejected(s) ? s : status(Code.ERROR, p.name, `running "${p.name}" filter plugin: ${s.reasons.join(", ")}`);
    }
    return null;
  }

  addPod(state: CycleState, pod: PodInfo, node: NodeInfo): void {
    for (const p of this.extensions) if (!state.skipFilter.has(p.name)) p.addPod?.(state, pod, node);
  }

  removePod(state: CycleState, pod: PodInfo, node: NodeInfo): void {
    for (const p of this.extensions) if (!state.skipFilter.has(p.name)) p.removePod?.(state, pod, node);
  }

  /** RunPostFilterPlugins: the first success wins; rejections' reasons are collected. */
  runPostFilter(state: CycleState, statuses: ReadonlyMap<string, Status>): PostFilterOutcome | null {
    if (this.postFilter.length === 0) return null;
    const reasons: string[] = [];
    let rejector = "";
    for (const p of this.postFilter) {
      const out = p.postFilter!(state, statuses);
      if (out.status.code === Code.SUCCESS || out.status.code === Code.UNSCHEDULABLE_AND_UNRESOLVABLE) return out;
      reasons.push(...out.status.reasons);
      if (rejector === "") rejector = p.name;
    }
    return { status: status(Code.UNSCHEDULABLE, rejector, ...reasons) };
  }

  /** RunPreScorePlugins: plugins returning Skip are left out of Score. */
  runPreScore(state: CycleState, nodes: readonly NodeInfo[]): void {
    for (const p of this.preScore) {
      const s = p.preScore!(state, nodes);
      if (s !== null && s.code === Code.SKIP) state.skipScore.add(p.name);
    }
  }

  /** RunScorePlugins: raw scores, NormalizeScore, then weight and sum. */
  runScore(state: CycleState, nodes: readonly NodeInfo[]): ScoreRun {
    const totals = new Array<number>(nodes.length).fill(0);
    const byPlugin = new Map<string, number[]>();
    for (const { plugin, weight } of this.score) {
      if (state.skipScore.has(plugin.name)) continue;
      const scores = new Array<number>(nodes.length);
      for (let i = 0; i < nodes.length; i++) scores[i] = plugin.score!(state, nodes[i]!);
      plugin.normalizeScore?.(state, nodes, scores);
      for (let i = 0; i < nodes.length; i++) {
        const s = Math.max(0, Math.min(MAX_NODE_SCORE, scores[i]!));
        scores[i] = s;
        totals[i]! += s * weight;
      }
      byPlugin.set(plugin.name, scores);
    }
    return { totals, byPlugin };
  }

  get hasScorePlugins(): boolean {
    return this.score.length > 0;
  }
}

function intersect(a: ReadonlySet<string> | null, b: ReadonlySet<string>): Set<string> {
  if (a === null) return new Set(b);
  const out = new Set<string>();
  for (const n of a) if (b.has(n)) out.add(n);
  return out;
}

function createPlugin(name: string, handle: Handle, runner: FilterRunner, profile: SchedulerProfile): Plugin | null {
  const args = profile.args;
  switch (name) {
    case PluginName.NODE_UNSCHEDULABLE:
      return nodeUnschedulablePlugin();
    case PluginName.NODE_NAME:
      return nodeNamePlugin();
    case PluginName.TAINT_TOLERATION:
      return taintTolerationPlugin(handle);
    case PluginName.NODE_AFFINITY:
      return nodeAffinityPlugin(args.NodeAffinity);
    case PluginName.NODE_PORTS:
      return nodePortsPlugin();
    case PluginName.NODE_RESOURCES_FIT:
      return fitPlugin(args.NodeResourcesFit);
    case PluginName.NODE_RESOURCES_BALANCED_ALLOCATION:
      return balancedAllocationPlugin(args.NodeResourcesBalancedAllocation);
    case PluginName.POD_TOPOLOGY_SPREAD:
      return podTopologySpreadPlugin(handle, args.PodTopologySpread);
    case PluginName.INTER_POD_AFFINITY:
      return interPodAffinityPlugin(handle, args.InterPodAffinity);
    case PluginName.DEFAULT_PREEMPTION:
      return defaultPreemptionPlugin(handle, runner, args.DefaultPreemption);
    default:
      // PrioritySort and DefaultBinder are the scheduler's own steps; volume plugins, SchedulingGates
      // and ImageLocality are not modelled (no volumes, no node image lists): they never reject a
      // pod and ImageLocality scores every node 0, so leaving them out changes no decision.
      return null;
  }
}
