// The plugin interfaces of the scheduling framework (framework/interface.go) as cnisim models them:
// one object per plugin with the extension points it implements, and the per-cycle state they share.
import type { ObjectStore } from "../../k8s/index.js";
import type { SeededRng } from "../../util/rng.js";
import type { SchedulerCache } from "../cache.js";
import type { NodeInfo } from "../node-info.js";
import type { PodInfo } from "../pod-info.js";
import type { Status } from "../status.js";
import type { KubeVersion } from "../version.js";

/** Data a plugin keeps for one scheduling cycle; clone() lets preemption dry runs change a copy. */
export interface StateData {
  clone(): StateData;
}

/** framework.CycleState: the pod being scheduled and what each plugin computed for it. */
export class CycleState {
  readonly data = new Map<string, StateData>();
  /** Plugins whose PreFilter returned Skip: their Filter is not run. */
  readonly skipFilter = new Set<string>();
  /** Plugins whose PreScore returned Skip: their Score is not run. */
  readonly skipScore = new Set<string>();

  constructor(readonly pod: PodInfo) {}

  read<T extends StateData>(plugin: string): T | undefined {
    return this.data.get(plugin) as T | undefined;
  }

  clone(): CycleState {
    const c = new CycleState(this.pod);
    for (const [k, v] of this.data) c.data.set(k, v.clone());
    for (const s of this.skipFilter) c.skipFilter.add(s);
    for (const s of this.skipScore) c.skipScore.add(s);
    return c;
  }
}

/** What plugins may consult besides the cycle state (framework.Handle). */
export interface Handle {
  readonly cache: SchedulerCache;
  readonly store: ObjectStore;
  readonly version: KubeVersion;
  readonly rng: SeededRng;
}

export interface PreFilterOutcome {
  /** null = success. */
  readonly status: Status | null;
  /** Node names the pod may go to (PreFilterResult.NodeNames); undefined = every node. */
  readonly nodeNames?: ReadonlySet<string>;
}

export interface PostFilterOutcome {
  readonly status: Status;
  /** The node preemption makes room on (status.nominatedNodeName). */
  readonly nominatedNode?: string;
  /** Pods to evict so that the pod fits on nominatedNode. */
  readonly victims?: readonly PodInfo[];
}

/** What PostFilter plugins (preemption) may run: the filters and the PreFilter extensions. */
export interface FilterRunner {
  runFilters(state: CycleState, node: NodeInfo): Status | null;
  addPod(state: CycleState, pod: PodInfo, node: NodeInfo): void;
  removePod(state: CycleState, pod: PodInfo, node: NodeInfo): void;
}

export interface Plugin {
  readonly name: string;
  /** Returns a Skip status to skip this plugin's Filter. */
  preFilter?(state: CycleState): PreFilterOutcome;
  /** PreFilterExtensions: keep the PreFilter state right while preemption adds or removes pods. */
  addPod?(state: CycleState, pod: PodInfo, node: NodeInfo): void;
  removePod?(state: CycleState, pod: PodInfo, node: NodeInfo): void;
  /** null = the node fits. */
  filter?(state: CycleState, node: NodeInfo): Status | null;
  postFilter?(state: CycleState, statuses: ReadonlyMap<string, Status>): PostFilterOutcome;
  /** Returns a Skip status to skip this plugin's Score; null = go on. */
  preScore?(state: CycleState, nodes: readonly NodeInfo[]): Status | null;
  score?(state: CycleState, node: NodeInfo): number;
  /** Rewrites `scores` (one per node of `nodes`) to the 0-100 range. */
  normalizeScore?(state: CycleState, nodes: readonly NodeInfo[], scores: number[]): void;
}

/** framework.MaxNodeScore. */
export const MAX_NODE_SCORE = 100;
