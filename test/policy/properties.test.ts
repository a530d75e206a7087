// Property tests (fast-check, fixed seeds): on thousands of generated clusters and connections the
// compiled datapath decision equals the reference evaluator's, and after random incremental
// changes the incrementally maintained maps equal a full recompile.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { PolicyCompiler } from "../../src/policy/compiler.js";
import { decideConnection } from "../../src/policy/decide.js";
import { formatConnection } from "../../src/policy/explain.js";
import { evaluateConnection, type ConnectionQuery } from "../../src/policy/reference.js";
import { IpProto, Personality, policyOptionsFor, type PolicyOptions } from "../../src/policy/types.js";
import type { PolicyWorld } from "../../src/policy/world.js";
import { parseIPv4 } from "../../src/util/ip.js";
import { unwrap } from "../../src/util/result.js";
import { changeArb, clusterArb, connectionArb } from "./support/arbitrary.js";
import { applyChange, canonicalState, incrementalFor } from "./support/canonical.js";

const SEED = 0x5eed_1ab;
const PERSONALITIES = [Personality.EBPF, Personality.IPTABLES] as const;

/** Throws with both readings when the compiled decision differs from the reference. */
function assertAgree(world: PolicyWorld, compilers: readonly PolicyCompiler[], options: PolicyOptions, q: ConnectionQuery): void {
  const ref = unwrap(evaluateConnection(world, q, options));
  const ip = (e: ConnectionQuery["src"]) => ("ip" in e ? parseIPv4(String(e.ip))! : world.pod(e.pod)!.ip);
  const proto = typeof q.protocol === "number" ? q.protocol : IpProto[q.protocol];
  for (const c of compilers) {
    const got = decideConnection(c, ip(q.src), ip(q.dst), proto, q.port);
    if (got.allowed !== ref.allowed) {
      throw new Error(`compiled ${got.allowed} but reference ${ref.allowed}\n${formatConnection(ref)}\npolicies: ${JSON.stringify([...world.allPolicies()].map((p) => p.raw))}`);
    }
  }
}

describe("compiled maps agree with the reference evaluator on generated clusters", () => {
  for (const personality of PERSONALITIES) {
    it(`600 clusters x 25 connections [${personality}]`, () => {
      const options = policyOptionsFor(personality);
      const scenario = clusterArb.chain((c) => fc.tuple(fc.constant(c), fc.array(connectionArb(c), { minLength: 25, maxLength: 25 })));
      fc.assert(
        fc.property(scenario, ([c, conns]) => {
          const { world, compiler } = incrementalFor(c, options);
          const full = new PolicyCompiler(world, options);
          for (const q of conns) assertAgree(world, [compiler, full], options, q);
        }),
        { seed: SEED, numRuns: 600 },
      );
    });
  }
});

describe("incremental compile equals full recompile after random changes", () => {
  for (const personality of PERSONALITIES) {
    it(`300 change sequences [${personality}]`, () => {
      const options = policyOptionsFor(personality);
      const scenario = clusterArb.chain((c) =>
        fc.tuple(fc.constant(c), fc.array(changeArb, { minLength: 1, maxLength: 12 }), fc.array(connectionArb(c), { minLength: 10, maxLength: 10 })),
      );
      fc.assert(
        fc.property(scenario, ([c, changes, conns]) => {
          const { world, compiler } = incrementalFor(c, options);
          for (const ch of changes) applyChange(world, ch);
          const full = new PolicyCompiler(world, options);
          assert.deepEqual(canonicalState(compiler), canonicalState(full));
          // Connections name addresses of the initial cluster; a pod that left is now an outside address.
          for (const q of conns) assertAgree(world, [compiler], options, q);
        }),
        { seed: SEED + 1, numRuns: 300 },
      );
    });
  }
});
