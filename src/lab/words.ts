// Shell words: splits a command line as a POSIX shell would for the subset lab scripts use —
// single and double quotes, backslash escapes, the operators "|", ">", ">>" and the list
// separators ";", "&&", "||" — so `kubectl get pods -o wide | awk '{print $1,$7}'` becomes a
// pipeline of two commands, and `a ; b` a list of two pipelines run without time passing between.
export type Operator = "|" | ">" | ">>" | ";" | "&&" | "||";
export type Token = { readonly kind: "word"; readonly text: string } | { readonly kind: "op"; readonly text: Operator };

export function tokenize(line: string): { tokens: Token[]; error: string | null } {
  const tokens: Token[] = [];
  let word = "";
  let inWord = false;
  const flush = (): void => {
    if (inWord) tokens.push({ kind: "word", text: word });
    word = "";
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return { tokens, error: "unterminated single quote" };
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
    } else if (c === '"') {
      inWord = true;
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length && '"\\$`'.includes(line[j + 1]!)) j++;
        word += line[j];
      }
      if (j >= line.length) return { tokens, error: "unterminated double quote" };
      i = j;
    } else if (c === "\\" && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) flush();
    else if (c === "|" || c === "&" || c === ";") {
      flush();
      const two = line.slice(i, i + 2);
      if (two === "&&" || two === "||") {
        tokens.push({ kind: "op", text: two });
        i++;
      } else if (c === "&") return { tokens, error: 'running a command in the background ("&") is not supported' };
      else tokens.push({ kind: "op", text: c });
    } else if (c === ">") {
      flush();
      if (line[i + 1] === ">") {
        i++;
        tokens.push({ kind: "op", text: ">>" });
      } else tokens.push({ kind: "op", text: ">" });
    } else {
      word += c;
      inWord = true;
    }
  }
  flush();
  return { tokens, error: null };
}

export interface Pipeline {
  /** Each command's words. */
  readonly commands: string[][];
  /** Output redirection of the last command. */
  readonly redirect: { readonly file: string; readonly append: boolean } | null;
}

/** A pipeline and how it joins the one before it (";" for the first). */
export interface ListItem {
  readonly join: ";" | "&&" | "||";
  readonly pipeline: Pipeline;
}

/** Splits a line into pipelines at ";", "&&" and "||". */
export function parseCommandList(line: string): { items: ListItem[] | null; error: string | null } {
  const { tokens, error } = tokenize(line);
  if (error !== null) return { items: null, error };
  const items: ListItem[] = [];
  let join: ListItem["join"] = ";";
  let start = 0;
  for (let i = 0; i <= tokens.length; i++) {
    const t = tokens[i];
    if (t !== undefined && !(t.kind === "op" && (t.text === ";" || t.text === "&&" || t.text === "||"))) continue;
    const part = tokens.slice(start, i);
    if (part.length === 0) {
      if (t === undefined && items.length > 0 && join === ";") break;
      return { items: null, error: t === undefined ? "empty command" : `empty command before "${t.text}"` };
    }
    const r = pipelineOf(part);
    if (r.pipeline === null) return { items: null, error: r.error };
    items.push({ join, pipeline: r.pipeline });
    if (t !== undefined) join = t.text as ListItem["join"];
    start = i + 1;
  }
  return { items, error: null };
}

function pipelineOf(tokens: readonly Token[]): { pipeline: Pipeline | null; error: string | null } {
  const commands: string[][] = [[]];
  let redirect: Pipeline["redirect"] = null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === "word") {
      if (redirect !== null) return { pipeline: null, error: `unexpected word "${t.text}" after the output file` };
      commands[commands.length - 1]!.push(t.text);
    } else if (t.text === "|") {
      if (commands[commands.length - 1]!.length === 0) return { pipeline: null, error: 'empty command before "|"' };
      commands.push([]);
    } else {
      const file = tokens[i + 1];
      if (file === undefined || file.kind !== "word") return { pipeline: null, error: `"${t.text}" needs a file name` };
      redirect = { file: file.text, append: t.text === ">>" };
      i++;
    }
  }
  if (commands[commands.length - 1]!.length === 0) return { pipeline: null, error: commands.length > 1 ? 'empty command after "|"' : "empty command" };
  return { pipeline: { commands, redirect }, error: null };
}
