// Upstream's test normalisation of iptables-restore text (pkg/proxy/iptables/proxier_test.go
// sortIPTablesRules over pkg/util/iptables/testing ParseIPTablesDump / String): tables by name;
// KUBE-NODEPORTS, then KUBE-SERVICES, then other KUBE-* chains alphabetically, then the rest; the
// rules of KUBE-NODEPORTS and KUBE-SERVICES stably ordered by the service name in their comment
// (nat KUBE-SERVICES keeps its "must be the last rule" rule last); "-X" lines after all rules.

interface Chain {
  name: string;
  rules: string[];
  deleted: boolean;
}
interface Table {
  name: string;
  chains: Chain[];
}

/** Splits like upstream's ParseRule: words or "quoted strings" (quotes dropped). */
function words(rule: string): string[] {
  const out: string[] = [];
  const re = /(?:^|\s)("[^"]*"|[^"]\S*)/g;
  for (let m = re.exec(rule); m !== null; m = re.exec(rule)) out.push(m[1]!.replace(/^"|"$/g, ""));
  return out;
}

export function ruleComment(rule: string): string | null {
  const w = words(rule);
  const i = w.indexOf("--comment");
  return i >= 0 && i + 1 < w.length ? w[i + 1]! : null;
}

export function parseDump(text: string): Table[] {
  const tables: Table[] = [];
  let t: Table | null = null;
  let declaring = false;
  for (const raw of text.replace(/^\n+|\n+$/g, "").split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    if (t === null) {
      if (!line.startsWith("*")) throw new Error(`table ${tables.length + 1} starts with ${JSON.stringify(line)}`);
      t = { name: line.slice(1), chains: [] };
      tables.push(t);
      declaring = true;
      continue;
    }
    const decl = declaring ? /^:(\S*) - \[(\d*):(\d*)\]$/.exec(line) : null;
    if (decl !== null) {
      t.chains.push({ name: decl[1]!, rules: [], deleted: false });
      continue;
    }
    declaring = false;
    const add = /^-A (\S*) (.*)$/.exec(line);
    const del = /^-X (.*)$/.exec(line);
    if (add !== null || del !== null) {
      const name = (add ?? del)![1]!;
      const c = t.chains.find((x) => x.name === name);
      if (c === undefined) throw new Error(`rule for undeclared chain ${name}: ${line}`);
      if (add !== null) c.rules.push(line);
      else c.deleted = true;
    } else if (line === "COMMIT") {
      t = null;
    } else {
      throw new Error(`cannot parse ${JSON.stringify(line)}`);
    }
  }
  if (t !== null) throw new Error("no COMMIT line");
  return tables;
}

export function formatDump(tables: readonly Table[]): string {
  let out = "";
  for (const t of tables) {
    out += `*${t.name}\n`;
    for (const c of t.chains) out += `:${c.name} - [0:0]\n`;
    for (const c of t.chains) for (const r of c.rules) out += `${r}\n`;
    for (const c of t.chains) if (c.deleted) out += `-X ${c.name}\n`;
    out += "COMMIT\n";
  }
  return out;
}

function serviceOf(comment: string): string {
  const i = comment.search(/[ :]/);
  return i < 0 ? comment : comment.slice(0, i);
}

/** orderByCommentServiceName as a comparator (0 when either rule has no comment). */
function byServiceName(a: string, b: string): number {
  const ca = ruleComment(a);
  const cb = ruleComment(b);
  if (ca === null || cb === null) return 0;
  const na = serviceOf(ca);
  const nb = serviceOf(cb);
  return na < nb ? -1 : na > nb ? 1 : 0;
}

function chainRank(name: string): number {
  if (name === "KUBE-NODEPORTS") return 0;
  if (name === "KUBE-SERVICES") return 1;
  return name.startsWith("KUBE-") ? 2 : 3;
}

export function sortIptablesRules(text: string): string {
  const tables = parseDump(text);
  tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const t of tables) {
    t.chains.sort((a, b) => chainRank(a.name) - chainRank(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const c of t.chains) {
      if (c.name === "KUBE-NODEPORTS" || (c.name === "KUBE-SERVICES" && t.name === "filter")) c.rules.sort(byServiceName);
      if (c.name === "KUBE-SERVICES" && t.name === "nat") {
        const last = (r: string): boolean => ruleComment(r)?.includes("must be the last rule") === true;
        c.rules.sort((a, b) => (last(a) ? (last(b) ? 0 : 1) : last(b) ? -1 : byServiceName(a, b)));
      }
    }
  }
  return formatDump(tables);
}

/** The raw rules of one chain, one per line (assertIPTablesChainEqual). */
export function chainRules(text: string, table: string, chain: string): string {
  const t = parseDump(text).find((x) => x.name === table);
  const c = t?.chains.find((x) => x.name === chain);
  return (c?.rules ?? []).map((r) => `${r}\n`).join("");
}
