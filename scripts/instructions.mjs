// Counts the instructions one `cnisim bench cni` cell executes per simulated millisecond, under
// valgrind, for one build or a candidate against a baseline build. Instruction counts do not move
// with the machine's load or a VM's clock, so changes of 1% are visible where wall time varies 1.5x.
//
// The steady state is read as the difference between a long and a short run of the same cell (start-up,
// loading and most JIT compilation cancel out), divided by the simulated time between them.
//
//   node scripts/instructions.mjs [--dist DIR] [--base DIR] [--cni NAME] [--short 100ms] [--long 300ms] [--profile N]
//
// --dist: the build to measure (default dist); --base: a baseline build measured in the same run (the
// ratio is printed, and the two builds' JSON must be identical); --profile N: also the N JavaScript
// functions with the most steady-state instructions of their own (callgrind, with V8's perf map).
// Needs valgrind (apt install valgrind). Each run takes 1-5 minutes; two run at once.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    dist: { type: "string", default: "dist" },
    base: { type: "string" },
    cni: { type: "string", default: "calico-vxlan" },
    short: { type: "string", default: "100ms" },
    long: { type: "string", default: "300ms" },
    profile: { type: "string" },
  },
});

function durationMs(text) {
  const m = /^(\d+)(ms|s)$/.exec(text);
  if (m === null) throw new Error(`instructions: ${text}: give a duration like 100ms or 1s`);
  return m[2] === "s" ? Number(m[1]) * 1000 : Number(m[1]);
}

/** Simulated milliseconds of a cell: the measured duration plus the warm-up iperf omits before it (timing.ts). */
function simulatedMs(duration) {
  return duration + (duration >= 2000 ? 1000 : duration / 4);
}

const profileTop = values.profile === undefined ? 0 : Number(values.profile);
const shortMs = durationMs(values.short);
const longMs = durationMs(values.long);
if (!(longMs > shortMs)) throw new Error("instructions: --long must be longer than --short");

/** One valgrind run: resolves to {ir, json, self} (self: JS function -> own instructions, with --profile). */
function measure(dist, duration) {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-ir-"));
  const out = join(dir, "valgrind.out");
  const tool = profileTop > 0 ? ["--tool=callgrind", "--dump-instr=yes", `--callgrind-out-file=${out}`] : ["--tool=cachegrind", "--cache-sim=no", `--cachegrind-out-file=${out}`];
  const nodeFlags = ["--single-threaded", ...(profileTop > 0 ? ["--perf-basic-prof"] : [])];
  const cli = [join(resolve(dist), "src/cli/main.js"), "bench", "cni", "--cni", values.cni, "--link", "40G", "--mtu", "9000", "--streams", "8", "--duration", duration, "--tests", "tcp", "--paths", "pod", "--jobs", "1", "-o", "json"];
  return new Promise((done, fail) => {
    const child = spawn("valgrind", [...tool, process.execPath, ...nodeFlags, ...cli], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
    let json = "";
    let err = "";
    child.stdout.on("data", (d) => (json += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", fail);
    child.on("close", (code) => {
      try {
        const m = /I\s+refs:\s+([\d,]+)/.exec(err);
        if (code !== 0 || m === null) throw new Error(`instructions: valgrind on ${dist} ${duration} ended with ${code}:\n${err.slice(-2000)}`);
        const self = profileTop > 0 ? selfByFunction(out, perfMap(dir, child.pid)) : new Map();
        done({ ir: Number(m[1].replaceAll(",", "")), json, self });
      } catch (e) {
        fail(e);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(`/tmp/perf-${child.pid}.map`, { force: true });
      }
    });
  });
}

/** V8's perf map of the run (address, size, name per compiled function), sorted by address. */
function perfMap(dir, pid) {
  const file = `/tmp/perf-${pid}.map`;
  if (!existsSync(file)) throw new Error(`instructions: no /tmp/perf-${pid}.map from node --perf-basic-prof (run in ${dir})`);
  const rows = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (m !== null) rows.push({ start: parseInt(m[1], 16), end: parseInt(m[1], 16) + parseInt(m[2], 16), name: cleanName(m[3]) });
  }
  return rows.sort((a, b) => a.start - b.start);
}

/** "JS:*runTable file:///.../dist/src/net/x.js:279:13" -> "runTable src/net/x.js:279" (tiers merged). */
function cleanName(name) {
  return name.replace(/^JS:[*~^+]?/, "").replace(/file:\/\/\/\S*?\/(src|node_modules)\//, "$1/").replace(/:(\d+):\d+$/, ":$1");
}

function symbolAt(rows, addr) {
  let lo = 0;
  let hi = rows.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid].start <= addr) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return at >= 0 && addr < rows[at].end ? rows[at].name : null;
}

/** Instructions per function (JIT code named through the perf map, native code by its symbol) from callgrind's per-instruction costs. */
function selfByFunction(file, rows) {
  const names = new Map();
  const named = (kind, text) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(text);
    if (m === null) return text;
    if (m[2] !== undefined) names.set(kind + m[1], m[2]);
    return names.get(kind + m[1]) ?? text;
  };
  const self = new Map();
  let object = "";
  let fn = "";
  let addr = 0;
  let callCost = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("ob=")) object = named("ob", line.slice(3));
    else if (line.startsWith("fn=")) fn = named("fn", line.slice(3));
    else if (line.startsWith("cob=")) named("ob", line.slice(4));
    else if (line.startsWith("cfn=")) named("fn", line.slice(4));
    else if (line.startsWith("calls=")) callCost = true;
    else if (/^(0x|[+\-*])/.test(line)) {
      const [pos, , cost] = line.split(" ");
      if (pos.startsWith("0x")) addr = parseInt(pos, 16);
      else if (pos[0] === "+") addr += Number(pos.slice(1));
      else if (pos[0] === "-") addr -= Number(pos.slice(1));
      if (callCost) {
        callCost = false; // a call's inclusive cost, not this function's own
        continue;
      }
      const jit = object === "" || object.includes("???");
      const key = jit ? (symbolAt(rows, addr) ?? "(unnamed JIT code)") : `${object.split("/").pop()} ${fn}`;
      self.set(key, (self.get(key) ?? 0) + (Number(cost) || 0));
    }
  }
  return self;
}

/** Two runs at a time (the machine's cores): short and long of one build together. */
async function steady(dist) {
  const [a, b] = await Promise.all([measure(dist, values.short), measure(dist, values.long)]);
  const simMs = simulatedMs(longMs) - simulatedMs(shortMs);
  const self = new Map();
  for (const [k, v] of b.self) self.set(k, v);
  for (const [k, v] of a.self) self.set(k, (self.get(k) ?? 0) - v);
  return { perMs: (b.ir - a.ir) / simMs, short: a, long: b, simMs, self };
}

const fmt = (n) => Math.round(n).toLocaleString("en-US");
const candidate = await steady(values.dist);
console.log(`${values.cni} 40G 8 streams, ${values.short} and ${values.long} runs (${candidate.simMs} simulated ms apart)`);
console.log(`${values.dist}: ${fmt(candidate.perMs)} instructions per simulated ms (runs: ${fmt(candidate.short.ir)}, ${fmt(candidate.long.ir)})`);
if (values.base !== undefined) {
  const base = await steady(values.base);
  console.log(`${values.base}: ${fmt(base.perMs)} instructions per simulated ms (runs: ${fmt(base.short.ir)}, ${fmt(base.long.ir)})`);
  console.log(`ratio ${values.dist} / ${values.base}: ${(candidate.perMs / base.perMs).toFixed(4)}`);
  const same = candidate.long.json === base.long.json && candidate.short.json === base.short.json;
  console.log(same ? "JSON identical: the same simulation" : "JSON differs: the builds simulate different things, the ratio compares unlike work");
}
if (profileTop > 0) {
  const total = [...candidate.self.values()].reduce((s, v) => s + v, 0);
  console.log(`\nsteady-state instructions of their own, ${values.dist} (top ${profileTop}):`);
  for (const [k, v] of [...candidate.self].sort((x, y) => y[1] - x[1]).slice(0, profileTop)) {
    console.log(`${((100 * v) / total).toFixed(2).padStart(6)}%  ${k}`);
  }
}
