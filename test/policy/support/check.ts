// Runs a truth table against both the reference evaluator and compiled maps (an incrementally
// maintained compiler and a fresh full compile) and lists every disagreement.
import { PolicyCompiler } from "../../../src/policy/compiler.js";
import { decideConnection } from "../../../src/policy/decide.js";
import { evaluateConnection } from "../../../src/policy/reference.js";
import { IpProto, type IpProtoName, type PolicyOptions } from "../../../src/policy/types.js";
import type { PolicyWorld } from "../../../src/policy/world.js";
import { unwrap } from "../../../src/util/result.js";

export type Expectation = { pods: readonly string[]; get(from: string, to: string): boolean };

/** Mismatches as "from -> to: expected X, reference Y, incremental Z, full W"; empty when all agree. */
export function checkTable(
  world: PolicyWorld,
  incremental: PolicyCompiler,
  options: PolicyOptions,
  protocol: IpProtoName,
  port: number,
  expected: Expectation,
): string[] {
  const full = new PolicyCompiler(world, options);
  full.dispose();
  const out: string[] = [];
  for (const from of expected.pods) {
    for (const to of expected.pods) {
      if (from === to) continue; // upstream ignores loopback (network_policy.go, ignoreLoopback)
      const want = expected.get(from, to);
      const ref = unwrap(evaluateConnection(world, { src: { pod: from }, dst: { pod: to }, protocol, port }, options)).allowed;
      const src = world.pod(from)!.ip;
      const dst = world.pod(to)!.ip;
      const inc = decideConnection(incremental, src, dst, IpProto[protocol], port).allowed;
      const fresh = decideConnection(full, src, dst, IpProto[protocol], port).allowed;
      if (ref !== want || inc !== want || fresh !== want) {
        out.push(`${from} -> ${to} ${port}/${protocol}: expected ${want}, reference ${ref}, incremental ${inc}, full ${fresh}`);
      }
    }
  }
  return out;
}
