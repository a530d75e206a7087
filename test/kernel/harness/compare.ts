// Field-level comparison of a kernel frame with the model's: both are dissected (src/wire dissect) and
// compared field by field, then byte by byte, so a disagreement names the field and both values.
// Fields that legitimately differ are listed by name (e.g. "ipv4[0].id") and masked by byte range.

import { dissect } from "../../../src/wire/dissect.js";
import { hex } from "./frames.js";

export interface FieldDiff {
  readonly field: string;
  readonly kernel: unknown;
  readonly model: unknown;
}

export interface DiffOptions {
  /** Dissected fields not compared, as "proto[n].key" (n counts layers of that proto, outer first). */
  readonly ignoreFields?: readonly string[];
  /** Byte ranges [start, end) not compared (the bytes behind the ignored fields). */
  readonly maskBytes?: readonly (readonly [number, number])[];
}

/** The frame's dissection flattened to "proto[n].key" -> value. */
export function flatten(frame: Uint8Array): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const seen = new Map<string, number>();
  for (const layer of dissect(frame, 1)) {
    const n = seen.get(layer.proto) ?? 0;
    seen.set(layer.proto, n + 1);
    for (const [key, value] of Object.entries(layer)) {
      if (key !== "proto") out.set(`${layer.proto}[${n}].${key}`, Array.isArray(value) ? value.join(",") : value);
    }
  }
  return out;
}

export function diffFrames(kernel: Uint8Array, model: Uint8Array, opts: DiffOptions = {}): FieldDiff[] {
  const ignore = new Set(opts.ignoreFields ?? []);
  const k = flatten(kernel);
  const m = flatten(model);
  const diffs: FieldDiff[] = [];
  for (const key of new Set([...k.keys(), ...m.keys()])) {
    if (ignore.has(key)) continue;
    if (k.get(key) !== m.get(key)) diffs.push({ field: key, kernel: k.get(key), model: m.get(key) });
  }
  if (diffs.length > 0) return diffs;
  if (kernel.length !== model.length) return [{ field: "frame.length", kernel: kernel.length, model: model.length }];
  const masked = (i: number): boolean => (opts.maskBytes ?? []).some(([a, b]) => i >= a && i < b);
  for (let i = 0; i < kernel.length; i++) {
    if (!masked(i) && kernel[i] !== model[i]) {
      return [{ field: `byte[${i}]`, kernel: hex(kernel.subarray(i, i + 8)), model: hex(model.subarray(i, i + 8)) }];
    }
  }
  return [];
}

export function formatDiffs(scenario: string, diffs: readonly FieldDiff[]): string {
  return diffs.map((d) => `${scenario}: ${d.field}: kernel ${JSON.stringify(d.kernel)}, model ${JSON.stringify(d.model)}`).join("\n");
}

/**
 * What an IPv4 packet the kernel generated itself with DF clear legitimately differs in: its IP ID
 * comes from ip_select_ident's hashed, randomly perturbed counters, and the header checksum follows
 * from it (its validity, checksumOk, is still compared).
 */
export const GENERATED_IP_ID: DiffOptions = { ignoreFields: ["ipv4[0].id"], maskBytes: [[18, 20], [24, 26]] };

/** GENERATED_IP_ID for frames whose outer IPv4 header has DF clear; exact comparison otherwise. */
export const generatedFrameRules = (kernelFrame: Uint8Array): DiffOptions =>
  kernelFrame.length >= 34 && kernelFrame[12] === 0x08 && kernelFrame[13] === 0 && ((kernelFrame[20] ?? 0) & 0x40) === 0 ? GENERATED_IP_ID : {};

/** Compares two frame lists in order; a missing or extra frame is one difference. */
export function diffFrameLists(
  kernel: readonly Uint8Array[],
  model: readonly Uint8Array[],
  opts: DiffOptions | ((kernelFrame: Uint8Array) => DiffOptions) = {},
): FieldDiff[] {
  const diffs: FieldDiff[] = [];
  const n = Math.max(kernel.length, model.length);
  for (let i = 0; i < n; i++) {
    const k = kernel[i];
    const m = model[i];
    if (k === undefined || m === undefined) {
      diffs.push({ field: `frame #${i + 1}`, kernel: k === undefined ? "(none)" : describeFrame(k), model: m === undefined ? "(none)" : describeFrame(m) });
      continue;
    }
    for (const d of diffFrames(k, m, typeof opts === "function" ? opts(k) : opts)) diffs.push({ ...d, field: `frame #${i + 1} ${d.field}` });
  }
  return diffs;
}

/** A short description of a frame for reports: its dissected layers. */
export function describeFrame(frame: Uint8Array): string {
  return dissect(frame, 1)
    .map((l) => {
      const { proto, ...rest } = l as { proto: string } & Record<string, unknown>;
      const keys = ["src", "dst", "type", "code", "srcPort", "dstPort", "ttl", "flags", "vni", "protocol"];
      return `${proto}(${keys.filter((k) => k in rest).map((k) => `${k}=${String(rest[k])}`).join(" ")})`;
    })
    .join(" / ");
}
