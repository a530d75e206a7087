// The networking half of `cnisim demo`: the seed lab's NetworkPolicy experiments on the emulated
// Calico IPIP cluster, each measured with real connection attempts (`reach`) or followed hop by hop
// (`trace`), with the explanation of every denied connection.

import { join } from "node:path";
import { selectEndpoints } from "../cluster/probe/endpoints.js";
import { parseReachPort, reach } from "../cluster/reach.js";
import { formatTracePath, parseTraceTarget, tracePath } from "../cluster/trace-path.js";
import type { CliContext } from "./command.js";
import { buildForCommand, formatReachTable } from "./commands/reach.js";

interface ReachStep {
  readonly from: string;
  readonly to: string;
  readonly port: string;
}

interface Experiment {
  readonly title: string;
  /** Policy file under examples/seed-lab/policies, or none. */
  readonly policy?: string;
  readonly reach?: ReachStep;
  /** Trace targets from ext/client. */
  readonly traces?: readonly string[];
}

const EXPERIMENTS: readonly Experiment[] = [
  { title: "1. No policy: every pod reaches web1 and web2, by pod IP and by ClusterIP", reach: { from: "pods", to: "web/web1,web/web2,svc/web/web1,svc/web/web2", port: "80/TCP" } },
  { title: "2. Policy: run=web1 admits run=test of its own namespace on TCP 80", policy: "01-ingress-from-pods-run-test.yaml", reach: { from: "pods", to: "web/web1", port: "80/TCP" } },
  { title: "3. Policy: run=web1 admits every pod of namespace web", policy: "02-ingress-from-all-pods-in-namespace.yaml", reach: { from: "pods", to: "web/web1", port: "80/TCP" } },
  { title: "4. Policy: run=web1 admits namespaces labelled project=myproject (none is)", policy: "03-ingress-from-namespace-project-myproject.yaml", reach: { from: "pods", to: "web/web1", port: "80/TCP" } },
  { title: "5. Policy: run=web1 admits pods of every namespace", policy: "04-ingress-from-all-namespaces.yaml", reach: { from: "pods", to: "web/web1", port: "80/TCP" } },
  {
    title: "6. Policy: ipBlock 10.1.8.0/24 except 10.1.8.128/26; the client 10.1.8.100 through each node's NodePort",
    policy: "05-ingress-from-ipblock.yaml",
    traces: ["node/master30.cyh.cloud:30790", "node/worker31.cyh.cloud:30790", "node/worker32.cyh.cloud:30790"],
  },
  { title: "7. Policy: all ports from run=test: ping web1's pod IP", policy: "06-ingress-all-ports-from-run-test.yaml", reach: { from: "web/test,cyh/test", to: "web/web1", port: "ICMP" } },
];

/** Runs every experiment; returns how many could not be run. */
export async function networkDemo(root: string, ctx: CliContext): Promise<number> {
  const lab = join(root, "examples", "seed-lab");
  let failed = 0;
  for (const e of EXPERIMENTS) {
    await ctx.out.line("");
    await ctx.out.line(`=== ${e.title} ===`);
    const files = [join(lab, "cluster.yaml"), join(lab, "workloads.yaml"), ...(e.policy !== undefined ? [join(lab, "policies", e.policy)] : [])];
    const rt = await buildForCommand(files, "web", ctx);
    if (rt === null) {
      failed++;
      continue;
    }
    if (e.reach !== undefined) {
      const from = selectEndpoints(rt, e.reach.from, "from");
      const to = selectEndpoints(rt, e.reach.to, "to");
      const port = parseReachPort(e.reach.port);
      if (!from.ok || !to.ok || !port.ok) {
        await ctx.err.line(`cnisim: demo: ${!from.ok ? from.error : !to.ok ? to.error : !port.ok ? port.error : ""}`);
        failed++;
        continue;
      }
      for (const line of formatReachTable(reach(rt, from.value, to.value, [port.value]))) await ctx.out.line(line);
    }
    for (const target of e.traces ?? []) {
      const t = parseTraceTarget(rt, target);
      const path = t.ok ? tracePath(rt, "ext/client", t.value) : t;
      if (!path.ok) {
        await ctx.err.line(`cnisim: demo: ${path.error}`);
        failed++;
        continue;
      }
      await ctx.out.line("");
      for (const line of formatTracePath(path.value)) await ctx.out.line(line);
    }
  }
  return failed;
}
