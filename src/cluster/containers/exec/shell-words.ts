// The small shell `kubectl exec POD -- sh -c '...'` runs: a command list of simple commands joined by
// `;`, `&&` and `||`, words with single quotes, double quotes and backslash escapes, and stdout
// redirection `> FILE` / `>> FILE`. Anything else (pipes, subshells, variables) is a syntax error.

export interface SimpleCommand {
  readonly argv: readonly string[];
  /** stdout redirected to a file: `>` (truncate) or `>>` (append). */
  readonly redirect: { readonly file: string; readonly append: boolean } | null;
  /** How this command is joined to the previous one (";" for the first). */
  readonly joiner: ";" | "&&" | "||";
}

export type ParsedList = { readonly ok: true; readonly commands: SimpleCommand[] } | { readonly ok: false; readonly error: string };

type Token = { kind: "word"; text: string } | { kind: "op"; text: ";" | "&&" | "||" | ">" | ">>" };

function tokenize(text: string): Token[] | string {
  const out: Token[] = [];
  let word: string | null = null;
  const flush = (): void => {
    if (word !== null) out.push({ kind: "word", text: word });
    word = null;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\n") {
      flush();
      continue;
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return "unterminated quoted string";
      word = (word ?? "") + text.slice(i + 1, end);
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let s = "";
      while (j < text.length && text[j] !== '"') {
        if (text[j] === "\\" && j + 1 < text.length && '"\\$`'.includes(text[j + 1]!)) j++;
        s += text[j];
        j++;
      }
      if (j >= text.length) return "unterminated quoted string";
      word = (word ?? "") + s;
      i = j;
      continue;
    }
    if (c === "\\" && i + 1 < text.length) {
      word = (word ?? "") + text[i + 1];
      i++;
      continue;
    }
    if (c === ";" || c === ">" || c === "&" || c === "|") {
      flush();
      const two = text.slice(i, i + 2);
      if (two === "&&" || two === "||" || two === ">>") {
        out.push({ kind: "op", text: two });
        i++;
      } else if (c === ";" || c === ">") out.push({ kind: "op", text: c });
      else return `"${c}" is not supported by cnisim's shell`;
      continue;
    }
    if ("$`()<".includes(c)) return `"${c}" is not supported by cnisim's shell`;
    word = (word ?? "") + c;
  }
  flush();
  return out;
}

/** Parses a command list (the argument of `sh -c`). */
export function parseCommandList(text: string): ParsedList {
  const tokens = tokenize(text);
  if (typeof tokens === "string") return { ok: false, error: tokens };
  const commands: SimpleCommand[] = [];
  let argv: string[] = [];
  let redirect: SimpleCommand["redirect"] = null;
  let joiner: SimpleCommand["joiner"] = ";";
  const end = (next: SimpleCommand["joiner"] | null): string | null => {
    if (argv.length === 0) return next === null && commands.length === 0 ? null : next === null && joiner === ";" ? null : `syntax error: unexpected "${next ?? "end of file"}"`;
    commands.push({ argv, redirect, joiner });
    argv = [];
    redirect = null;
    joiner = next ?? ";";
    return null;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === "word") argv.push(t.text);
    else if (t.text === ">" || t.text === ">>") {
      const file = tokens[i + 1];
      if (file?.kind !== "word") return { ok: false, error: `syntax error: unexpected "${file?.text ?? "newline"}"` };
      redirect = { file: file.text, append: t.text === ">>" };
      i++;
    } else {
      const e = end(t.text);
      if (e !== null) return { ok: false, error: e };
    }
  }
  const e = end(null);
  if (e !== null) return { ok: false, error: e };
  return { ok: true, commands };
}
