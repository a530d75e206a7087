// Runs lab scripts against the seed lab's cluster for the lab tests.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadFiles } from "../../src/k8s/index.js";
import { defaultScheduler, LabCluster, LabFiles, runLab, type LabExtensions, type LabResult, type StepRecord } from "../../src/lab/index.js";
import { err, ok } from "../../src/util/result.js";
import { SEED_CLUSTER } from "../controllers/support.js";

export const EXAMPLES = resolve(process.cwd(), "examples/lab");

export interface Run {
  readonly result: LabResult;
  readonly cluster: LabCluster;
  /** Everything printed, stderr lines prefixed "ERR ". */
  readonly transcript: string[];
  /** The steps whose command contains `text` (in order). */
  steps(text: string): StepRecord[];
  /** The single step whose command contains `text`. */
  step(text: string): StepRecord;
}

export async function runScript(script: string, options: { keepGoing?: boolean; extensions?: LabExtensions; baseDir?: string } = {}): Promise<Run> {
  const loaded = await loadFiles([SEED_CLUSTER]);
  const made = LabCluster.create(loaded, { scheduler: defaultScheduler });
  assert.ok(made.ok, made.ok ? "" : made.error);
  const cluster = made.value;
  const base = options.baseDir ?? EXAMPLES;
  const files = new LabFiles((path) => {
    try {
      return ok(readFileSync(resolve(base, path), "utf8"));
    } catch (e) {
      return err((e as Error).message);
    }
  });
  const transcript: string[] = [];
  const result = runLab(
    cluster,
    script,
    { files, keepGoing: options.keepGoing === true, scriptName: "test.lab", ...(options.extensions === undefined ? {} : { extensions: options.extensions }) },
    { out: (l) => transcript.push(l), err: (l) => transcript.push(`ERR ${l}`) },
  );
  const steps = (text: string): StepRecord[] => result.steps.filter((s) => s.command.includes(text));
  return {
    result,
    cluster,
    transcript,
    steps,
    step(text: string): StepRecord {
      const found = steps(text);
      assert.equal(found.length, 1, `exactly one step runs "${text}" (found ${found.length})`);
      return found[0]!;
    },
  };
}

export async function runExample(file: string): Promise<Run> {
  const run = await runScript(readFileSync(resolve(EXAMPLES, file), "utf8"));
  assert.deepEqual(run.result.errors, [], `${file} runs without script errors`);
  return run;
}

/** "name status node" rows of `kubectl get pods -o wide --no-headers | awk '{print $1,$3,$7}'` output. */
export const rows = (lines: readonly string[]): string[][] => lines.map((l) => l.split(" "));
