// Wall time of `cnisim bench cni` with its cells in worker threads (--jobs = the CPUs available)
// against the same command run one cell after another (--jobs 1, the baseline), both as fresh
// processes in the same run, as a user runs them (each pays its own start-up and JIT warm-up):
// four 40 Gbit/s 8-stream TCP cells of 1 s simulated (auto picks threads from 1 s on; shorter cells
// do not repay a worker's start-up). Both must print the same JSON.
import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Bench } from "tinybench";

const CLI = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
const ARGS = ["bench", "cni", "--cni", "calico-ipip,calico-vxlan,canal,flannel-vxlan", "--link", "40G", "--mtu", "9000", "--streams", "8", "--duration", "1s", "--tests", "tcp", "--paths", "pod", "-o", "json"];
const jobs = availableParallelism();

const printed = new Map<number, string>();
const run = (j: number): void => {
  printed.set(j, execFileSync(process.execPath, [CLI, ...ARGS, "--jobs", String(j)], { encoding: "utf8" }));
};
const bench = new Bench({ time: 0, warmupTime: 0, warmupIterations: 0, iterations: 2 });
bench.add("cnisim bench cni --jobs 1 (baseline)", () => run(1));
bench.add(`cnisim bench cni --jobs ${jobs}`, () => run(jobs));
await bench.run();
if (printed.get(1) !== printed.get(jobs)) throw new Error(`--jobs ${jobs} printed other results than --jobs 1`);
const mean = (i: number): number => {
  const r = bench.tasks[i]?.result;
  return r !== undefined && "latency" in r ? r.latency.mean : Number.NaN;
};
const serialMs = mean(0);
console.table(
  bench.tasks.map((t, i) => ({ run: t.name, "wall ms": Math.round(mean(i)), "speed vs baseline": (serialMs / mean(i)).toFixed(2) })),
);
