// kubectl flag syntax (pflag) and kubectl's wording for unknown flags.
import { test } from "node:test";
import assert from "node:assert/strict";
import { flagBool, flagList, flagString, parseFlags } from "../../src/lab/kubectl/flags.js";

const SPECS = { output: { kind: "string", short: "o" }, "show-labels": { kind: "bool" }, "label-columns": { kind: "list", short: "L" }, all: { kind: "bool", short: "A" }, tty: { kind: "bool", short: "t" } } as const;

test("long and short forms, attached values, grouped booleans, repeated lists, -- ends the flags", () => {
  const r = parseFlags(["get", "pods", "-owide", "--show-labels", "-L", "a", "--label-columns=b,c", "-n=web", "-At", "--", "ls", "-l"], SPECS);
  assert.ok(r.ok);
  const p = r.value;
  assert.deepEqual(p.args, ["get", "pods"]);
  assert.equal(flagString(p, "output"), "wide");
  assert.equal(flagString(p, "namespace"), "web");
  assert.equal(flagBool(p, "show-labels"), true);
  assert.equal(flagBool(p, "all") && flagBool(p, "tty"), true);
  assert.deepEqual(flagList(p, "label-columns"), ["a", "b", "c"]);
  assert.deepEqual(p.rest, ["ls", "-l"]);
});

test("unknown flags are reported as kubectl reports them", () => {
  assert.deepEqual(parseFlags(["--replica=3"], SPECS), { ok: false, error: "unknown flag: --replica" });
  assert.deepEqual(parseFlags(["-x"], SPECS), { ok: false, error: "unknown shorthand flag: 'x' in -x" });
  assert.deepEqual(parseFlags(["-o"], SPECS), { ok: false, error: "flag needs an argument: 'o' in -o" });
  assert.deepEqual(parseFlags(["--show-labels=maybe"], SPECS), {
    ok: false,
    error: 'invalid argument "maybe" for "--show-labels" flag: strconv.ParseBool: parsing "maybe": invalid syntax',
  });
});
