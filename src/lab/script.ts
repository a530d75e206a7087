// Lab scripts: the text a user types in a lab, one command per line. Blank lines and "#" comments
// are skipped, a trailing "\" joins the next line, a shell prompt ("root@master30:~# ", "$ ") is
// stripped, and "<<EOF" (also <<'EOF', <<"EOF", <<-EOF) takes the following lines up to the
// delimiter as the command's standard input.
export interface ScriptStep {
  /** 1-based line of the command's first line. */
  readonly line: number;
  /** The command with continuations joined and the heredoc marker removed. */
  readonly command: string;
  /** Heredoc body (lines joined with "\n", with a final "\n"), when the command had one. */
  readonly stdin?: string;
}

export interface ScriptError {
  readonly line: number;
  readonly message: string;
}

const PROMPT = /^(?:\S+@[^\s:]+:[^\s#$]*[#$]|\$|#)\s+(?=\S)/;
const HEREDOC = /<<(-?)\s*(?:'([^']+)'|"([^"]+)"|([A-Za-z_][A-Za-z0-9_]*))/;

/** Removes a shell prompt at the start of a line; a bare "# comment" is left alone (it has no command). */
export function stripPrompt(text: string): string {
  const m = PROMPT.exec(text);
  if (m === null || m[0].startsWith("#")) return text;
  return text.slice(m[0].length);
}

/** Removes a "#" comment that starts a word outside quotes. */
export function stripComment(text: string): string {
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "\\") i++;
    else if (c === "#" && (i === 0 || /\s/.test(text[i - 1]!))) return text.slice(0, i).trimEnd();
  }
  return text;
}

export function parseScript(text: string): { steps: ScriptStep[]; errors: ScriptError[] } {
  const lines = text.split(/\r?\n/);
  const steps: ScriptStep[] = [];
  const errors: ScriptError[] = [];
  for (let i = 0; i < lines.length; i++) {
    const first = i + 1;
    let raw = stripPrompt(lines[i]!.trim());
    if (raw === "" || raw.startsWith("#")) continue;
    while (raw.endsWith("\\") && i + 1 < lines.length) raw = raw.slice(0, -1).trimEnd() + " " + lines[++i]!.trim();
    const command = stripComment(raw).trim();
    if (command === "") continue;
    const m = HEREDOC.exec(command);
    if (m === null) {
      steps.push({ line: first, command });
      continue;
    }
    const delimiter = m[2] ?? m[3] ?? m[4]!;
    const stripTabs = m[1] === "-";
    const body: string[] = [];
    let closed = false;
    while (i + 1 < lines.length) {
      const next = lines[++i]!;
      const candidate = stripTabs ? next.replace(/^\t+/, "") : next;
      if (candidate.trimEnd() === delimiter) {
        closed = true;
        break;
      }
      body.push(candidate);
    }
    if (!closed) {
      errors.push({ line: first, message: `here-document started here is not closed by a line "${delimiter}"` });
      break;
    }
    const rest = (command.slice(0, m.index) + command.slice(m.index + m[0].length)).replace(/\s+/g, " ").trim();
    steps.push({ line: first, command: rest, stdin: body.length === 0 ? "" : body.join("\n") + "\n" });
  }
  return { steps, errors };
}
