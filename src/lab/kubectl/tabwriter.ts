// Go's text/tabwriter as kubectl uses it: lines of tab-terminated cells; consecutive lines with a
// cell in column k form a block whose column k is as wide as its widest cell plus the padding;
// the text after a line's last tab is not a cell and is never padded. kubectl's tables use
// padding 3 (printers.GetNewTabWriter), describe uses padding 2.

const width = (s: string): number => [...s].length;

/** Formats lines whose cells are separated by "\t" (a trailing cell may be empty). */
export function tabwrite(lines: readonly string[], padding: number): string[] {
  const cells = lines.map((l) => l.split("\t"));
  const widths: number[][] = cells.map((c) => new Array<number>(Math.max(0, c.length - 1)).fill(0));
  // Column k is formatted block by block: maximal runs of lines with more than k cells.
  const maxCols = Math.max(0, ...cells.map((c) => c.length - 1));
  for (let k = 0; k < maxCols; k++) {
    let start = 0;
    while (start < cells.length) {
      if (cells[start]!.length - 1 <= k) {
        start++;
        continue;
      }
      let end = start;
      let w = 0;
      while (end < cells.length && cells[end]!.length - 1 > k) {
        w = Math.max(w, width(cells[end]![k]!) + padding);
        end++;
      }
      for (let i = start; i < end; i++) widths[i]![k] = w;
      start = end;
    }
  }
  return cells.map((c, i) => {
    let out = "";
    for (let k = 0; k < c.length - 1; k++) out += c[k]! + " ".repeat(widths[i]![k]! - width(c[k]!));
    return out + c[c.length - 1]!;
  });
}

/** A kubectl table: header and rows joined by tabs, padding 3. */
export function formatTable(header: readonly string[] | null, rows: readonly (readonly string[])[]): string[] {
  const lines = [...(header === null ? [] : [header]), ...rows].map((r) => r.join("\t"));
  return tabwrite(lines, 3);
}
