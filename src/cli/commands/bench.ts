// `cnisim bench cni [--cni ...] [--link 10G] [--mtu 1500,9000] [--pod-mtu N] [--streams 1,8] [--cpus N]
// [--cpu-ghz F] [--duration 5s] [--seed N] [--tests tcp,udp,rr] [--paths pod,service,nodeport] [--jobs N] [-o table|json|svg|html]`:
// runs the CNI performance comparison (src/perf), its cells on up to N cores, and prints it; a
// progress bar on a terminal's stderr.
import { availableParallelism } from "node:os";
import type { Command } from "commander";
import cliProgress from "cli-progress";
import { parseGoDuration } from "../../lab/index.js";
import {
  autoJobs,
  comparisonJson,
  DEFAULT_BENCH_OPTIONS,
  FLAVOUR_NAMES,
  formatComparison,
  isFlavourName,
  renderHtml,
  renderSvg,
  runComparison,
  runComparisonInWorkers,
  throughputSpec,
  type BenchOptions,
  type FlavourName,
  type ProgressReport,
  type Protocol,
  type TestPath,
} from "../../perf/index.js";
import { parseQueueSize } from "../../k8s/netunits.js";
import { err, ok, type Result } from "../../util/result.js";
import { ExitCode, type CliCommand, type CliContext } from "../command.js";

type RawOptions = {
  cni?: string;
  link: string;
  mtu: string;
  podMtu?: string;
  streams: string;
  cpus: string;
  cpuGhz: string;
  duration: string;
  seed: string;
  tests: string;
  paths: string;
  output: string;
  offload: boolean;
  jobs: string;
  queue?: string;
};

const OUTPUTS = ["table", "json", "svg", "html"] as const;
type Output = (typeof OUTPUTS)[number];
const TESTS: Readonly<Record<string, Protocol>> = { tcp: "TCP", udp: "UDP", rr: "TCP_RR" };
const PATHS: Readonly<Record<string, TestPath>> = {
  pod: "pod-to-pod",
  service: "pod-to-service",
  nodeport: "client-to-nodeport",
  "pod-to-pod": "pod-to-pod",
  "pod-to-service": "pod-to-service",
  "client-to-nodeport": "client-to-nodeport",
};

export const benchCommand: CliCommand = {
  register(program: Command, ctx: CliContext): void {
    const bench = program.command("bench").description("performance comparisons by emulation");
    bench
      .command("cni")
      .description("compare CNI plugins' throughput, latency and CPU against bare metal (iperf3/netperf-like tests on a 3-node cluster)")
      .option("--cni <list>", `flavours, comma-separated (${FLAVOUR_NAMES.join(", ")})`)
      .option("--link <speed>", "underlay link speed: 10G, 25G, 40G (or any NG)", "10G")
      .option("--mtu <list>", "host MTUs, comma-separated", "1500")
      .option("--pod-mtu <n>", "pod MTU for every CNI (default: host MTU minus the encapsulation overhead)")
      .option("--streams <list>", "parallel streams per test (iperf3 -P), comma-separated", "1,8")
      .option("--cpus <n>", "logical CPUs per node", String(DEFAULT_BENCH_OPTIONS.cpus))
      .option("--cpu-ghz <f>", "CPU clock of the nodes (the cost model's reference is 3 GHz)", String(DEFAULT_BENCH_OPTIONS.cpuGHz))
      .option("--duration <d>", "simulated time measured per test (a warm-up is omitted before it)", "5s")
      .option("--seed <n>", "seed of the clusters' random streams", "1")
      .option("--tests <list>", "tests to run: tcp, udp, rr", "tcp,udp,rr")
      .option("--paths <list>", "paths: pod (pod to pod across nodes), service (pod to ClusterIP), nodeport (a client outside the cluster to the server node's NodePort)", "pod,service")
      .option("--jobs <n>", "cells run at once, each in a worker thread (1: one after the other on this thread; auto: one per CPU when cells simulate 1 s or more, else 1); the results are the same for any N", "auto")
      .option("--no-offload", "model NICs without TSO/GSO and GRO (every segment crosses the stack alone)")
      .option("--queue <bytes>", "the underlay NICs' transmit queue in bytes on the wire, a quantity such as 8Mi (default: the Cluster file's 1514000, 1000 frames of 1514 bytes)")
      .option("-o, --output <format>", "table | json | svg | html", "table")
      .action(async (raw: RawOptions) => {
        ctx.exitCode = await run(raw, ctx);
      });
  },
};

function list(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function numbers(flag: string, text: string): Result<number[], string> {
  const out: number[] = [];
  for (const s of list(text)) {
    const n = Number(s);
    if (!Number.isFinite(n)) return err(`${flag}: ${JSON.stringify(s)} is not a number`);
    out.push(n);
  }
  return out.length === 0 ? err(`${flag}: give at least one value`) : ok(out);
}

function linkGbps(text: string): Result<number, string> {
  const m = /^(\d+(?:\.\d+)?)\s*(g|gb|gbps|gbit|gbit\/s)?$/i.exec(text.trim());
  if (m === null) return err(`--link: ${JSON.stringify(text)} is not a speed like 10G, 25G, 40G`);
  return ok(Number(m[1]));
}

function jobCount(text: string, options: BenchOptions): Result<number, string> {
  if (text.trim().toLowerCase() === "auto") return ok(autoJobs(options, availableParallelism()));
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= 1024 ? ok(n) : err(`--jobs: ${JSON.stringify(text)} is not a count of cells to run at once (1-1024) or auto`);
}

function parse(raw: RawOptions): Result<{ options: BenchOptions; output: Output; jobs: number }, string> {
  const flavours: FlavourName[] = [];
  for (const name of raw.cni === undefined ? DEFAULT_BENCH_OPTIONS.flavours : list(raw.cni)) {
    if (!isFlavourName(name)) return err(`--cni: unknown CNI ${JSON.stringify(name)} (known: ${FLAVOUR_NAMES.join(", ")})`);
    flavours.push(name);
  }
  const link = linkGbps(raw.link);
  if (!link.ok) return link;
  const mtus = numbers("--mtu", raw.mtu);
  if (!mtus.ok) return mtus;
  const streams = numbers("--streams", raw.streams);
  if (!streams.ok) return streams;
  const duration = parseGoDuration(raw.duration);
  if (!duration.ok) return err(`--duration: ${duration.error}`);
  const protocols: Protocol[] = [];
  for (const t of list(raw.tests)) {
    const p = TESTS[t.toLowerCase()];
    if (p === undefined) return err(`--tests: unknown test ${JSON.stringify(t)} (tcp, udp, rr)`);
    protocols.push(p);
  }
  const paths: TestPath[] = [];
  for (const t of list(raw.paths)) {
    const p = PATHS[t.toLowerCase()];
    if (p === undefined) return err(`--paths: unknown path ${JSON.stringify(t)} (pod, service, nodeport)`);
    paths.push(p);
  }
  if (!(OUTPUTS as readonly string[]).includes(raw.output)) return err(`-o: ${JSON.stringify(raw.output)} is not one of ${OUTPUTS.join(", ")}`);
  let queueBytes: number | null = null;
  if (raw.queue !== undefined) {
    const q = parseQueueSize(raw.queue);
    if (!q.ok) return err(`--queue: ${q.error}`);
    queueBytes = q.value;
  }
  const options: BenchOptions = {
    flavours,
    linkGbps: link.value,
    hostMtus: mtus.value,
    podMtu: raw.podMtu === undefined ? null : Number(raw.podMtu),
    streams: streams.value,
    protocols,
    paths,
    cpus: Number(raw.cpus),
    cpuGHz: Number(raw.cpuGhz),
    durationNs: duration.value,
    seed: Number(raw.seed),
    offload: raw.offload,
    queueBytes,
  };
  const jobs = jobCount(raw.jobs, options);
  if (!jobs.ok) return jobs;
  return ok({ options, output: raw.output as Output, jobs: jobs.value });
}

async function run(raw: RawOptions, ctx: CliContext): Promise<0 | 1 | 2> {
  const parsed = parse(raw);
  if (!parsed.ok) {
    await ctx.err.line(`cnisim: bench cni: ${parsed.error}`);
    return ExitCode.USAGE;
  }
  const { options, output, jobs } = parsed.value;
  const bar = process.stderr.isTTY === true ? new cliProgress.SingleBar({ stream: process.stderr, format: "{bar} {percentage}% | {label}", hideCursor: true, clearOnComplete: true }, cliProgress.Presets.shades_classic) : null;
  bar?.start(1000, 0, { label: "" });
  const onProgress = (p: ProgressReport): void => bar?.update(Math.round((1000 * p.done) / Math.max(1, p.total)), { label: p.label });
  const done = jobs === 1 ? runComparison(options, onProgress) : await runComparisonInWorkers(options, jobs, onProgress);
  bar?.stop();
  if (!done.ok) {
    await ctx.err.line(`cnisim: bench cni: ${done.error}`);
    return ExitCode.USAGE;
  }
  const c = done.value;
  const text = output === "json" ? comparisonJson(c) : output === "svg" ? await renderSvg(throughputSpec(c)) : output === "html" ? await renderHtml(c) : formatComparison(c);
  for (const l of text.replace(/\n$/, "").split("\n")) await ctx.out.line(l);
  await ctx.out.flush();
  for (const f of c.failures) await ctx.err.line(`cnisim: bench cni: ${f.label}: ${f.error}`);
  await ctx.err.flush();
  return c.failures.length > 0 ? ExitCode.FAILURE : ExitCode.OK;
}
