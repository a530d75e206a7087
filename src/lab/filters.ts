// The text filters lab scripts pipe kubectl's output through, as the seed lab does
// (`| awk '{print $1,$7}'`, `|grep Node:`): awk '{print ...}' with an optional NR condition,
// grep [-v] [-i] [-E] [-w] [-c], head / tail [-n N], wc -l, sort [-r], cat.
import { err, ok, type Result } from "../util/result.js";

export type TextFilter = (lines: readonly string[]) => string[];

function awkProgram(program: string): Result<TextFilter, string> {
  const m = /^\s*(?:NR\s*(==|!=|>=|<=|>|<)\s*(\d+)\s*)?\{\s*print(?:\s+(.*?))?\s*;?\s*\}\s*$/.exec(program);
  if (m === null) return err(`awk: only '{print ...}' programs (optionally after NR>N) are supported, not ${JSON.stringify(program)}`);
  const [, op, bound, list] = m;
  const items = (list ?? "$0").split(",").map((item) => item.trim());
  const parts: ((fields: string[], line: string) => string)[] = [];
  for (const item of items) {
    const pieces = item.match(/\$\d+|"[^"]*"/g);
    if (pieces === null || pieces.join("").replace(/\s+/g, "") !== item.replace(/\s+/g, "")) return err(`awk: cannot print ${JSON.stringify(item)}`);
    parts.push((fields, line) =>
      pieces
        .map((p) => {
          if (p.startsWith('"')) return p.slice(1, -1);
          const n = Number(p.slice(1));
          return n === 0 ? line : (fields[n - 1] ?? "");
        })
        .join(""),
    );
  }
  const keep = (nr: number): boolean => {
    if (op === undefined) return true;
    const b = Number(bound);
    switch (op) {
      case "==":
        return nr === b;
      case "!=":
        return nr !== b;
      case ">=":
        return nr >= b;
      case "<=":
        return nr <= b;
      case ">":
        return nr > b;
      default:
        return nr < b;
    }
  };
  return ok((lines) =>
    lines.flatMap((line, i) => {
      if (!keep(i + 1)) return [];
      const fields = line.trim() === "" ? [] : line.trim().split(/\s+/);
      return [parts.map((f) => f(fields, line)).join(" ")];
    }),
  );
}

function grepFilter(args: readonly string[]): Result<TextFilter, string> {
  let invert = false;
  let ignoreCase = false;
  let extended = false;
  let word = false;
  let count = false;
  let pattern: string | undefined;
  for (const a of args) {
    if (pattern === undefined && /^-[viEwc]+$/.test(a)) {
      invert ||= a.includes("v");
      ignoreCase ||= a.includes("i");
      extended ||= a.includes("E");
      word ||= a.includes("w");
      count ||= a.includes("c");
    } else if (pattern === undefined) pattern = a;
    else return err(`grep: reading files is not supported (got ${JSON.stringify(a)})`);
  }
  if (pattern === undefined) return err("grep: a pattern is required");
  // Basic regular expressions treat + ? | ( ) { } literally.
  const source = extended ? pattern : pattern.replace(/[+?|(){}]/g, (c) => `\\${c}`);
  let re: RegExp;
  try {
    re = new RegExp(word ? `(?<![\\w])(?:${source})(?![\\w])` : source, ignoreCase ? "i" : "");
  } catch {
    return err(`grep: invalid pattern ${JSON.stringify(pattern)}`);
  }
  return ok((lines) => {
    const kept = lines.filter((l) => re.test(l) !== invert);
    return count ? [String(kept.length)] : kept;
  });
}

function countArg(args: readonly string[], name: string): Result<number, string> {
  if (args.length === 0) return ok(10);
  const text = args[0] === "-n" ? args[1] : /^-\d+$/.test(args[0]!) ? args[0]!.slice(1) : args[0]!.startsWith("-n") ? args[0]!.slice(2) : undefined;
  const n = Number(text);
  if (text === undefined || !Number.isInteger(n) || n < 0) return err(`${name}: expected -n N`);
  return ok(n);
}

/** Builds the filter for one pipeline stage after kubectl (argv[0] is the program). */
export function textFilter(argv: readonly string[]): Result<TextFilter, string> {
  const [program, ...args] = argv;
  switch (program) {
    case "awk":
      if (args.length !== 1) return err("awk: give exactly one program, e.g. '{print $1,$7}'");
      return awkProgram(args[0]!);
    case "grep":
    case "egrep":
      return grepFilter(program === "egrep" ? ["-E", ...args] : args);
    case "head":
    case "tail": {
      const n = countArg(args, program);
      if (!n.ok) return n;
      return ok((lines) => (program === "head" ? lines.slice(0, n.value) : n.value === 0 ? [] : lines.slice(-n.value)));
    }
    case "wc":
      if (args.length !== 1 || args[0] !== "-l") return err("wc: only wc -l is supported");
      return ok((lines) => [String(lines.length)]);
    case "sort":
      if (args.some((a) => a !== "-r")) return err("sort: only sort and sort -r are supported");
      return ok((lines) => {
        const sorted = [...lines].sort();
        return args.includes("-r") ? sorted.reverse() : sorted;
      });
    case "cat":
      if (args.length > 0) return err("cat: in a pipeline cat reads only its input");
      return ok((lines) => [...lines]);
    default:
      return err(`"${program}" cannot be used in a pipeline (awk, grep, head, tail, wc -l, sort, cat can)`);
  }
}
