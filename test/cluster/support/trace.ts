// One traced connection attempt for tests: parse the destination, trace it, fail the test on an error.
import assert from "node:assert/strict";
import type { ClusterRuntime } from "../../../src/cluster/runtime.js";
import { parseTraceTarget, tracePath, type TracePath } from "../../../src/cluster/trace-path.js";

export function trace(rt: ClusterRuntime, from: string, to: string): TracePath {
  const target = parseTraceTarget(rt, to);
  if (!target.ok) assert.fail(target.error);
  const p = tracePath(rt, from, target.value);
  if (!p.ok) assert.fail(p.error);
  return p.value;
}
