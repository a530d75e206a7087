// The networking half of `cnisim demo`: the seed lab's NetworkPolicy experiments on the emulated
// Calico IPIP cluster, each measured with real connection attempts (`reach`) or followed hop by hop
// (`trace`), with the explanation of every denied connection.

import { join } from "node:path";
import { selectEndpoints } from "../cluster/probe/endpoints.js";
import { listenInPod } from "../cluster/probe/exec-listeners.js";
import { parseReachPort, reach, type ReachPort } from "../cluster/reach.js";
import { formatTracePath, parseTraceTarget, tracePath } from "../cluster/trace-path.js";
import type { ClusterRuntime } from "../cluster/runtime.js";
import type { CliContext } from "./command.js";
import { buildForCommand, formatReachTable } from "./commands/reach.js";

interface ReachStep {
  readonly from: string;
  readonly to: string;
  readonly ports: readonly string[];
}

interface Experiment {
  /** "1" .. "9e": `--only network:9` runs the experiments whose id starts with 9. */
  readonly id: string;
  readonly title: string;
  /** Policy files under examples/seed-lab/policies, applied together. */
  readonly policies?: readonly string[];
  /** Extra TCP listeners in a pod before probing (`kubectl exec POD -- nc -lk -p PORT`). */
  readonly listen?: { readonly pod: string; readonly ports: readonly number[] };
  readonly reach?: ReachStep | readonly ReachStep[];
  /** Connection attempts followed hop by hop. */
  readonly traces?: readonly { readonly from: string; readonly to: string }[];
  /** What upstream NetworkPolicy semantics say the outcome is, printed under the title. */
  readonly expect?: string;
}

const RANGE_PORTS = [31999, 32000, 32768, 32769] as const;
/** The lab's own pods (the cluster may run more, e.g. CoreDNS in kube-system). */
const LAB_PODS = "cyh/test,web/test,web/web1,web/web2";

const EXPERIMENTS: readonly Experiment[] = [
  { id: "1", title: "No policy: every pod reaches web1 and web2, by pod IP and by ClusterIP", reach: { from: LAB_PODS, to: "web/web1,web/web2,svc/web/web1,svc/web/web2", ports: ["80/TCP"] } },
  { id: "2", title: "Policy: run=web1 admits run=test of its own namespace on TCP 80", policies: ["01-ingress-from-pods-run-test.yaml"], reach: { from: LAB_PODS, to: "web/web1", ports: ["80/TCP"] } },
  { id: "3", title: "Policy: run=web1 admits every pod of namespace web", policies: ["02-ingress-from-all-pods-in-namespace.yaml"], reach: { from: LAB_PODS, to: "web/web1", ports: ["80/TCP"] } },
  { id: "4", title: "Policy: run=web1 admits namespaces labelled project=myproject (none is)", policies: ["03-ingress-from-namespace-project-myproject.yaml"], reach: { from: LAB_PODS, to: "web/web1", ports: ["80/TCP"] } },
  { id: "5", title: "Policy: run=web1 admits pods of every namespace", policies: ["04-ingress-from-all-namespaces.yaml"], reach: { from: LAB_PODS, to: "web/web1", ports: ["80/TCP"] } },
  {
    id: "6",
    title: "Policy: ipBlock 10.1.8.0/24 except 10.1.8.128/26; the client 10.1.8.100 through each node's NodePort",
    policies: ["05-ingress-from-ipblock.yaml"],
    traces: ["master30", "worker31", "worker32"].map((n) => ({ from: "ext/client", to: `node/${n}.cyh.cloud:30790` })),
  },
  {
    id: "7",
    title: "Policy: all ports from run=test: ping web1's pod IP, and its ClusterIP",
    policies: ["06-ingress-all-ports-from-run-test.yaml"],
    reach: { from: "web/test,cyh/test", to: "web/web1,svc/web/web1", ports: ["ICMP"] },
    traces: [{ from: "web/test", to: "svc/web/web1/ICMP" }],
    expect: "web/test pings web1's pod IP; cyh/test is denied; no ClusterIP answers a ping (kube-proxy only DNATs the service's TCP port 80)",
  },
  {
    id: "8",
    title: "Policy: run=web1 admits run=test on TCP 32000-32768 (port + endPort); web1 listens on 31999, 32000, 32768, 32769",
    policies: ["07-ingress-port-range.yaml"],
    listen: { pod: "web/web1", ports: RANGE_PORTS },
    reach: { from: "web/test,cyh/test,web/web2", to: "web/web1", ports: RANGE_PORTS.map((p) => `${p}/TCP`) },
    expect: "the range is inclusive: web/test connects on 32000 and 32768 only; cyh/test (other namespace) and web2 (run=web2) never",
  },
  {
    id: "9a",
    title: "Default policy allow-all-ingress in namespace web",
    policies: ["09-allow-all-ingress.yaml"],
    reach: { from: LAB_PODS, to: "web/web1,web/web2", ports: ["80/TCP"] },
    expect: "every pod of web is ingress-isolated, and its one empty rule admits everything: nothing is denied",
  },
  {
    id: "9b",
    title: "Default policy default-deny-ingress in namespace web",
    policies: ["10-default-deny-ingress.yaml"],
    reach: { from: LAB_PODS, to: LAB_PODS, ports: ["ICMP"] },
    expect: "nothing may enter a pod of web except from itself; egress is unchanged (web pods still reach cyh/test)",
  },
  {
    id: "9c",
    title: "Default policy allow-all-egress in namespace web",
    policies: ["11-allow-all-egress.yaml"],
    reach: { from: LAB_PODS, to: LAB_PODS, ports: ["ICMP"] },
    expect: "every pod of web is egress-isolated, and its one empty rule admits everything: nothing is denied",
  },
  {
    id: "9d",
    title: "Default policy default-deny-egress in namespace web",
    policies: ["12-default-deny-egress.yaml"],
    reach: [
      { from: LAB_PODS, to: LAB_PODS, ports: ["ICMP"] },
      { from: "web/test,cyh/test", to: "svc/kube-system/kube-dns", ports: ["53/UDP"] },
    ],
    expect: "nothing may leave a pod of web except to itself, not even a DNS query to kube-dns; ingress is unchanged (cyh/test still reaches web pods)",
  },
  {
    id: "9e",
    title: "Default policy default-deny-all in namespace web",
    policies: ["13-default-deny-all.yaml"],
    reach: { from: LAB_PODS, to: LAB_PODS, ports: ["ICMP"] },
    expect: "both directions of every web pod are closed; cyh/test is untouched except for its traffic with web",
  },
  {
    id: "9f",
    title: "Both sides must allow: web1 admits run=test on TCP 80 (01), but web's pods may not send (12)",
    policies: ["01-ingress-from-pods-run-test.yaml", "12-default-deny-egress.yaml"],
    reach: { from: "web/test,cyh/test", to: "web/web1", ports: ["80/TCP"] },
    expect: "web/test is denied by its own egress policy although web1's ingress allows it; cyh/test (not egress-isolated) is denied by web1's ingress",
  },
  {
    id: "9g",
    title: "Both sides must allow: 01 and 12 plus allow-all-egress (11)",
    policies: ["01-ingress-from-pods-run-test.yaml", "12-default-deny-egress.yaml", "11-allow-all-egress.yaml"],
    reach: { from: "web/test,cyh/test", to: "web/web1", ports: ["80/TCP"] },
    expect: "policies add up: 11 allows web/test's egress, 01 allows web1's ingress, so web/test connects",
  },
  {
    id: "9h",
    title: "Both sides must allow: allow-all-egress (11) cannot open default-deny-ingress (10)",
    policies: ["10-default-deny-ingress.yaml", "11-allow-all-egress.yaml"],
    reach: { from: "web/test,cyh/test", to: "web/web1", ports: ["80/TCP"] },
    expect: "the source's egress allows it, the destination's ingress does not: denied",
  },
];

/** Runs every experiment whose id starts with `only` (all when undefined); returns how many could not be run. */
export async function networkDemo(root: string, ctx: CliContext, only?: string): Promise<number> {
  const lab = join(root, "examples", "seed-lab");
  const chosen = EXPERIMENTS.filter((e) => only === undefined || e.id.startsWith(only));
  if (chosen.length === 0) {
    await ctx.err.line(`cnisim: demo: no network experiment matches "${only ?? ""}" (ids ${EXPERIMENTS.map((e) => e.id).join(", ")})`);
    return 1;
  }
  let failed = 0;
  for (const e of chosen) {
    await ctx.out.line("");
    await ctx.out.line(`=== ${e.id}. ${e.title} ===`);
    if (e.expect !== undefined) await ctx.out.line(`expected (Kubernetes NetworkPolicy semantics): ${e.expect}`);
    const files = [join(lab, "cluster.yaml"), join(lab, "workloads.yaml"), ...(e.policies ?? []).map((p) => join(lab, "policies", p))];
    const rt = await buildForCommand(files, "web", ctx);
    const problem = rt === null ? "the seed lab did not build" : await runExperiment(rt, e, ctx);
    if (problem !== null) {
      if (rt !== null) await ctx.err.line(`cnisim: demo: ${e.id}: ${problem}`);
      failed++;
    }
  }
  return failed;
}

/** Runs one experiment's probes and traces; returns what went wrong, or null. */
async function runExperiment(rt: ClusterRuntime, e: Experiment, ctx: CliContext): Promise<string | null> {
  const listening = e.listen === undefined ? null : listenInPod(rt, e.listen.pod, e.listen.ports);
  if (listening !== null && !listening.ok) return listening.error;
  try {
    const steps: readonly ReachStep[] = e.reach === undefined ? [] : "from" in e.reach ? [e.reach] : e.reach;
    for (const [i, step] of steps.entries()) {
      const from = selectEndpoints(rt, step.from, "from");
      const to = selectEndpoints(rt, step.to, "to");
      if (!from.ok) return from.error;
      if (!to.ok) return to.error;
      const ports: ReachPort[] = [];
      for (const text of step.ports) {
        const p = parseReachPort(text);
        if (!p.ok) return p.error;
        ports.push(p.value);
      }
      if (i > 0) await ctx.out.line("");
      for (const line of formatReachTable(reach(rt, from.value, to.value, ports))) await ctx.out.line(line);
    }
    for (const trace of e.traces ?? []) {
      const t = parseTraceTarget(rt, trace.to);
      const path = t.ok ? tracePath(rt, trace.from, t.value) : t;
      if (!path.ok) return path.error;
      await ctx.out.line("");
      for (const line of formatTracePath(path.value)) await ctx.out.line(line);
    }
    return null;
  } finally {
    if (listening !== null && listening.ok) listening.value();
  }
}
