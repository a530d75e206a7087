// `--exec 'POD -- CMD...'` of attach: "[NAMESPACE/]POD [-c CONTAINER] -- CMD ARGS", the command words
// split as a shell splits them (single and double quotes), as `kubectl exec POD -- CMD` takes them.
import { err, ok, type Result } from "../../../util/result.js";

export interface ExecSpec {
  /** "ns/name" (namespace default when not given). */
  readonly pod: string;
  readonly container: string | undefined;
  readonly argv: readonly string[];
}

/** Shell-like word splitting: whitespace separates words; quotes group them; a backslash escapes. */
export function splitWords(text: string): Result<string[], string> {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return err(`unterminated ${c} quote`);
      word = (word ?? "") + text.slice(i + 1, end);
      i = end;
    } else if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[++i];
    } else word = (word ?? "") + c;
  }
  if (word !== null) words.push(word);
  return ok(words);
}

export function parseExecSpec(text: string): Result<ExecSpec, string> {
  const words = splitWords(text);
  if (!words.ok) return words;
  const dash = words.value.indexOf("--");
  if (dash < 0) return err("expected 'POD -- COMMAND ...'");
  const head = words.value.slice(0, dash);
  const argv = words.value.slice(dash + 1);
  if (argv.length === 0) return err("no command after --");
  let container: string | undefined;
  const ci = head.findIndex((w) => w === "-c" || w === "--container");
  if (ci >= 0) {
    container = head[ci + 1];
    if (container === undefined) return err("-c needs a container name");
    head.splice(ci, 2);
  }
  if (head.length !== 1) return err(`expected one pod before --, got ${head.length === 0 ? "none" : head.join(" ")}`);
  const pod = head[0]!.includes("/") ? head[0]! : `default/${head[0]}`;
  return ok({ pod, container, argv });
}
