// Enforces the layer import rules of ARCHITECTURE.md on the source tree: which top-level
// folder may import which, no default exports, no import cycles between folders, and
// process/argv access only in the CLI and API layers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = process.cwd();

/** Layer of a repo-relative path: "src/net/x.ts" -> "net", "datapath/maps/x.ts" -> "datapath". */
function layerOf(path: string): string {
  const parts = path.split("/");
  return parts[0] === "src" ? parts[1]! : parts[0]!;
}

const CONTROL_PLANE = ["util", "wire", "skb", "datapath", "k8s", "trace"];
/** What each layer may import besides itself. */
const ALLOWED: Record<string, readonly string[]> = {
  util: [],
  engine: ["util"],
  wire: ["util"],
  skb: ["util", "wire"],
  datapath: ["util", "wire", "skb"],
  trace: ["util", "wire", "skb", "datapath"],
  pcap: ["util", "wire", "skb"],
  net: ["util", "engine", "wire", "skb", "trace", "datapath"],
  k8s: ["util"],
  policy: CONTROL_PLANE,
  kubeproxy: [...CONTROL_PLANE, "net"],
  cni: [...CONTROL_PLANE, "engine", "net", "policy", "kubeproxy"], // engine: BGP timers run on simulated time
  scheduler: ["util", "k8s"],
  controllers: ["util", "k8s", "scheduler"],
  metrics: ["util", "k8s", "trace", "net", "datapath", "engine"],
  cluster: ["util", "engine", "wire", "skb", "datapath", "trace", "net", "k8s", "policy", "kubeproxy", "cni", "scheduler", "controllers", "metrics", "pcap"],
  lab: ["util", "engine", "wire", "skb", "datapath", "trace", "net", "k8s", "policy", "kubeproxy", "cni", "scheduler", "controllers", "metrics", "cluster", "pcap"],
  perf: ["util", "engine", "wire", "skb", "datapath", "trace", "net", "k8s", "policy", "kubeproxy", "cni", "scheduler", "controllers", "metrics", "cluster", "pcap"],
  api: ["util", "engine", "wire", "skb", "datapath", "trace", "net", "k8s", "policy", "kubeproxy", "cni", "scheduler", "controllers", "metrics", "cluster", "lab", "pcap"],
  cli: ["util", "engine", "wire", "skb", "datapath", "trace", "net", "k8s", "policy", "kubeproxy", "cni", "scheduler", "controllers", "metrics", "cluster", "lab", "pcap", "api", "perf"],
};
/** Files allowed to cross a rule, each with the reason. */
const EXCEPTIONS: Record<string, { layers: readonly string[]; why: string }> = {
  "datapath/attach.ts": { layers: ["net"], why: "adapts programs to the device hook interface (types only)" },
};
/** Layers that may touch the process (argv, stdout, exit, env). */
const PROCESS_LAYERS = new Set(["cli", "api"]);

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (name.endsWith(".ts")) out.push(relative(ROOT, full));
  }
  return out;
}

const files = [...sourceFiles(join(ROOT, "src")), ...sourceFiles(join(ROOT, "datapath"))];
const IMPORT_RE = /^\s*(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;

function importsOf(file: string, text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (spec === undefined || !spec.startsWith(".")) continue;
    out.push(normalize(join(dirname(file), spec)));
  }
  return out;
}

test("every module imports only the layers it may", () => {
  const violations: string[] = [];
  for (const file of files) {
    const layer = layerOf(file);
    const allowed = ALLOWED[layer];
    if (allowed === undefined) {
      violations.push(`${file}: folder "${layer}" is not a known layer`);
      continue;
    }
    for (const target of importsOf(file, readFileSync(file, "utf8"))) {
      const to = layerOf(target);
      if (to === layer || allowed.includes(to)) continue;
      if (EXCEPTIONS[file]?.layers.includes(to)) continue;
      violations.push(`${file} imports ${target} (${layer} -> ${to} is not allowed)`);
    }
  }
  assert.deepEqual(violations, []);
});

test("no default exports", () => {
  const offenders = files.filter((f) => /^\s*export\s+default\b/m.test(readFileSync(f, "utf8")));
  assert.deepEqual(offenders, []);
});

test("only cli and api touch the process", () => {
  const offenders = files.filter((f) => {
    if (PROCESS_LAYERS.has(layerOf(f))) return false;
    const text = readFileSync(f, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    return /\bprocess\.(argv|exit|stdout|stderr|env|stdin)\b/.test(text);
  });
  assert.deepEqual(offenders, []);
});

test("no import cycles between layers", () => {
  const edges = new Map<string, Set<string>>();
  for (const file of files) {
    const from = layerOf(file);
    for (const target of importsOf(file, readFileSync(file, "utf8"))) {
      const to = layerOf(target);
      if (to === from || EXCEPTIONS[file]?.layers.includes(to)) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  const cycles: string[] = [];
  const visit = (node: string, path: string[]) => {
    for (const next of edges.get(node) ?? []) {
      if (path.includes(next)) cycles.push([...path.slice(path.indexOf(next)), next].join(" -> "));
      else visit(next, [...path, next]);
    }
  };
  for (const start of edges.keys()) visit(start, [start]);
  assert.deepEqual([...new Set(cycles)], []);
});
