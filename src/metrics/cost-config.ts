// `spec.costModel` of the Cluster file: overrides of the CPU clock, step costs, baselines and the
// metrics resolution, validated field by field (errors name the path and what is wrong).
import { parseDuration, parseQuantity } from "../k8s/index.js";
import { err, ok, type Result } from "../util/result.js";
import { COST_STEPS, DEFAULT_COST_MODEL, type CostModel, type CostStep, type StepCost } from "./cost-model.js";
import { quantityScaled } from "./usage.js";

export interface CostConfigError {
  /** e.g. "spec.costModel.steps.vxlanEncap.packetNs" */
  readonly path: string;
  readonly reason: string;
}

const ROOT = "spec.costModel";
const TOP_FIELDS = ["cpuGHz", "steps", "system", "idlePod", "conntrackEntryBytes", "resolution"] as const;
const STEP_FIELDS = ["packetNs", "byteNs", "batchNs"] as const;
const USAGE_FIELDS = ["cpu", "memory"] as const;
const IDLE_POD_FIELDS = ["cpu", "memory", "cpuPerRequest"] as const;

type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

class Reader {
  readonly errors: CostConfigError[] = [];

  object(v: unknown, path: string, allowed: readonly string[]): Raw | null {
    if (!isObject(v)) {
      this.errors.push({ path, reason: "must be a mapping" });
      return null;
    }
    for (const k of Object.keys(v)) if (!allowed.includes(k)) this.errors.push({ path: `${path}.${k}`, reason: `unknown field (known: ${allowed.join(", ")})` });
    return v;
  }

  number(v: unknown, path: string, min: number, positive = false): number | null {
    if (typeof v !== "number" || !Number.isFinite(v) || v < min || (positive && v === 0)) {
      this.errors.push({ path, reason: `must be a number ${positive ? "above" : "at least"} ${min}` });
      return null;
    }
    return v;
  }

  quantity(v: unknown, path: string, scale: number): number | null {
    const text = typeof v === "number" ? String(v) : v;
    if (typeof text !== "string") {
      this.errors.push({ path, reason: "must be a quantity such as 20m or 768Mi" });
      return null;
    }
    const q = parseQuantity(text);
    if (!q.ok || q.value.mantissa < 0n) {
      this.errors.push({ path, reason: q.ok ? "must not be negative" : q.error });
      return null;
    }
    return quantityScaled(q.value, scale);
  }
}

/** The cost model with `spec.costModel` applied over the defaults; undefined keeps the defaults. */
export function costModelFromSpec(raw: unknown, base: CostModel = DEFAULT_COST_MODEL): Result<CostModel, CostConfigError[]> {
  if (raw === undefined || raw === null) return ok(base);
  const r = new Reader();
  const spec = r.object(raw, ROOT, TOP_FIELDS);
  if (spec === null) return err(r.errors);
  let cpuGHz = base.cpuGHz;
  if (spec.cpuGHz !== undefined) cpuGHz = r.number(spec.cpuGHz, `${ROOT}.cpuGHz`, 0, true) ?? cpuGHz;
  const steps: Record<CostStep, StepCost> = { ...base.steps };
  if (spec.steps !== undefined) {
    const given = r.object(spec.steps, `${ROOT}.steps`, COST_STEPS);
    for (const [name, value] of Object.entries(given ?? {})) {
      if (!(COST_STEPS as readonly string[]).includes(name)) continue;
      const step = name as CostStep;
      const path = `${ROOT}.steps.${step}`;
      const fields = r.object(value, path, STEP_FIELDS);
      if (fields === null) continue;
      const cur = steps[step];
      steps[step] = {
        packetNs: fields.packetNs === undefined ? cur.packetNs : (r.number(fields.packetNs, `${path}.packetNs`, 0) ?? cur.packetNs),
        byteNs: fields.byteNs === undefined ? cur.byteNs : (r.number(fields.byteNs, `${path}.byteNs`, 0) ?? cur.byteNs),
        batchNs: fields.batchNs === undefined ? cur.batchNs : (r.number(fields.batchNs, `${path}.batchNs`, 0) ?? cur.batchNs),
      };
    }
  }
  const usage = (key: "system" | "idlePod", cpu: number, memory: number): [number, number] => {
    if (spec[key] === undefined) return [cpu, memory];
    const path = `${ROOT}.${key}`;
    const u = r.object(spec[key], path, key === "idlePod" ? IDLE_POD_FIELDS : USAGE_FIELDS);
    if (u === null) return [cpu, memory];
    return [
      u.cpu === undefined ? cpu : (r.quantity(u.cpu, `${path}.cpu`, 9) ?? cpu),
      u.memory === undefined ? memory : (r.quantity(u.memory, `${path}.memory`, 0) ?? memory),
    ];
  };
  const [systemCpuNanoCores, systemMemoryBytes] = usage("system", base.systemCpuNanoCores, base.systemMemoryBytes);
  const [idleCpuNanoCores, idleMemoryBytes] = usage("idlePod", base.idleCpuNanoCores, base.idleMemoryBytes);
  let idleRequestCpuNs = base.idleRequestCpuNs;
  const perRequest = isObject(spec.idlePod) ? spec.idlePod.cpuPerRequest : undefined;
  if (perRequest !== undefined) {
    const d = typeof perRequest === "string" ? parseDuration(perRequest) : err("must be a duration such as 7us");
    if (!d.ok || d.value < 0) r.errors.push({ path: `${ROOT}.idlePod.cpuPerRequest`, reason: d.ok ? "must not be negative" : d.error });
    else idleRequestCpuNs = d.value;
  }
  let conntrackEntryBytes = base.conntrackEntryBytes;
  if (spec.conntrackEntryBytes !== undefined) conntrackEntryBytes = r.number(spec.conntrackEntryBytes, `${ROOT}.conntrackEntryBytes`, 0) ?? conntrackEntryBytes;
  let resolutionNs = base.resolutionNs;
  if (spec.resolution !== undefined) {
    const d = typeof spec.resolution === "string" ? parseDuration(spec.resolution) : err("must be a duration such as 15s");
    if (!d.ok || d.value <= 0) r.errors.push({ path: `${ROOT}.resolution`, reason: d.ok ? "must be above 0" : d.error });
    else resolutionNs = d.value;
  }
  if (r.errors.length > 0) return err(r.errors);
  return ok({ ...base, cpuGHz, steps, systemCpuNanoCores, systemMemoryBytes, idleCpuNanoCores, idleMemoryBytes, idleRequestCpuNs, conntrackEntryBytes, resolutionNs });
}
