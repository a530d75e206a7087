// Which extension points each in-tree plugin implements, the default profile's MultiPoint list and
// weights (apis/config/v1/default_plugins.go, v1.30), and how a profile's plugin sets are merged
// with the defaults and expanded per extension point (v1 mergePlugins + framework expandMultiPointPlugins).
import { PluginName } from "../plugins/names.js";

export const EXTENSION_POINTS = [
  "queueSort",
  "preFilter",
  "filter",
  "postFilter",
  "preScore",
  "score",
  "reserve",
  "permit",
  "preBind",
  "bind",
  "postBind",
] as const;
export type ExtensionPoint = (typeof EXTENSION_POINTS)[number];

/** Extension points of every plugin kube-scheduler 1.30 registers in-tree. */
export const PLUGIN_EXTENSION_POINTS: Readonly<Record<string, readonly ExtensionPoint[]>> = {
  [PluginName.PRIORITY_SORT]: ["queueSort"],
  [PluginName.SCHEDULING_GATES]: [],
  [PluginName.NODE_UNSCHEDULABLE]: ["filter"],
  [PluginName.NODE_NAME]: ["filter"],
  [PluginName.TAINT_TOLERATION]: ["filter", "preScore", "score"],
  [PluginName.NODE_AFFINITY]: ["preFilter", "filter", "preScore", "score"],
  [PluginName.NODE_PORTS]: ["preFilter", "filter"],
  [PluginName.NODE_RESOURCES_FIT]: ["preFilter", "filter", "preScore", "score"],
  [PluginName.VOLUME_RESTRICTIONS]: ["preFilter", "filter"],
  [PluginName.NODE_VOLUME_LIMITS]: ["filter"],
  [PluginName.VOLUME_BINDING]: ["preFilter", "filter", "reserve", "preBind"],
  [PluginName.VOLUME_ZONE]: ["filter"],
  [PluginName.POD_TOPOLOGY_SPREAD]: ["preFilter", "filter", "preScore", "score"],
  [PluginName.INTER_POD_AFFINITY]: ["preFilter", "filter", "preScore", "score"],
  [PluginName.DEFAULT_PREEMPTION]: ["postFilter"],
  [PluginName.NODE_RESOURCES_BALANCED_ALLOCATION]: ["preScore", "score"],
  [PluginName.IMAGE_LOCALITY]: ["score"],
  [PluginName.DEFAULT_BINDER]: ["bind"],
};

export interface PluginRef {
  readonly name: string;
  /** Score weight; 0 = unset. */
  readonly weight: number;
}

export interface PluginSet {
  readonly enabled: readonly PluginRef[];
  readonly disabled: readonly string[];
}

export type PluginSets = { readonly multiPoint: PluginSet } & { readonly [E in ExtensionPoint]: PluginSet };

const EMPTY: PluginSet = { enabled: [], disabled: [] };

export function emptyPluginSets(): PluginSets {
  const sets: Record<string, PluginSet> = { multiPoint: EMPTY };
  for (const e of EXTENSION_POINTS) sets[e] = EMPTY;
  return sets as PluginSets;
}

const ref = (name: string, weight = 0): PluginRef => ({ name, weight });

/** getDefaultPlugins (v1): everything through MultiPoint, with the default score weights. */
export const DEFAULT_PLUGIN_SETS: PluginSets = {
  ...emptyPluginSets(),
  multiPoint: {
    enabled: [
      ref(PluginName.SCHEDULING_GATES),
      ref(PluginName.PRIORITY_SORT),
      ref(PluginName.NODE_UNSCHEDULABLE),
      ref(PluginName.NODE_NAME),
      ref(PluginName.TAINT_TOLERATION, 3),
      ref(PluginName.NODE_AFFINITY, 2),
      ref(PluginName.NODE_PORTS),
      ref(PluginName.NODE_RESOURCES_FIT, 1),
      ref(PluginName.VOLUME_RESTRICTIONS),
      ref(PluginName.NODE_VOLUME_LIMITS),
      ref(PluginName.VOLUME_BINDING),
      ref(PluginName.VOLUME_ZONE),
      ref(PluginName.POD_TOPOLOGY_SPREAD, 2),
      ref(PluginName.INTER_POD_AFFINITY, 2),
      ref(PluginName.DEFAULT_PREEMPTION),
      ref(PluginName.NODE_RESOURCES_BALANCED_ALLOCATION, 1),
      ref(PluginName.IMAGE_LOCALITY, 1),
      ref(PluginName.DEFAULT_BINDER),
    ],
    disabled: [],
  },
};

/** v1 mergePluginSet: defaults minus the disabled ("*" = all), re-configured defaults kept in place, the rest appended. */
function mergePluginSet(defaults: PluginSet, custom: PluginSet): PluginSet {
  const disabled = new Set([...custom.disabled, ...defaults.disabled]);
  const customByName = new Map(custom.enabled.map((p, i) => [p.name, { p, i }]));
  const replaced = new Set<number>();
  const enabled: PluginRef[] = [];
  if (!disabled.has("*")) {
    for (const d of defaults.enabled) {
      if (disabled.has(d.name)) continue;
      const c = customByName.get(d.name);
      if (c !== undefined) replaced.add(c.i);
      enabled.push(c?.p ?? d);
    }
  }
  custom.enabled.forEach((p, i) => {
    if (!replaced.has(i)) enabled.push(p);
  });
  return { enabled, disabled: [...custom.disabled, ...defaults.disabled] };
}

export function mergePluginSets(defaults: PluginSets, custom: PluginSets): PluginSets {
  const out: Record<string, PluginSet> = { multiPoint: mergePluginSet(defaults.multiPoint, custom.multiPoint) };
  for (const e of EXTENSION_POINTS) out[e] = mergePluginSet(defaults[e], custom[e]);
  return out as PluginSets;
}

export interface ResolvedPlugins {
  readonly points: { readonly [E in ExtensionPoint]: readonly string[] };
  /** Score weight of every score plugin (1 when unset). */
  readonly weights: Readonly<Record<string, number>>;
}

/** The plugins run at each extension point, in order, after MultiPoint expansion. */
export function resolvePlugins(sets: PluginSets): ResolvedPlugins {
  const points: Record<string, string[]> = {};
  for (const e of EXTENSION_POINTS) {
    const specific = sets[e].enabled.map((p) => p.name);
    const disabled = new Set(sets[e].disabled);
    if (disabled.has("*")) {
      points[e] = specific;
      continue;
    }
    const specificSet = new Set(specific);
    const overrides = new Set<string>();
    const multi: string[] = [];
    for (const p of sets.multiPoint.enabled) {
      if (!(PLUGIN_EXTENSION_POINTS[p.name] ?? []).includes(e) || disabled.has(p.name)) continue;
      if (specificSet.has(p.name)) overrides.add(p.name);
      else if (!multi.includes(p.name)) multi.push(p.name);
    }
    points[e] = [...specific.filter((n) => overrides.has(n)), ...multi, ...specific.filter((n) => !overrides.has(n))];
  }
  const weights: Record<string, number> = {};
  for (const p of [...sets.score.enabled, ...sets.multiPoint.enabled]) {
    if (!(PLUGIN_EXTENSION_POINTS[p.name] ?? []).includes("score") || weights[p.name] !== undefined) continue;
    weights[p.name] = p.weight === 0 ? 1 : p.weight;
  }
  return { points: points as unknown as ResolvedPlugins["points"], weights };
}
