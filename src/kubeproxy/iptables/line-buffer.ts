// The text buffer kube-proxy builds iptables-restore input in (proxyutil.LineBuffer): each
// write is one line of words joined by single spaces; nested word lists are flattened.

export type Words = readonly (string | readonly string[])[];

export class LineBuffer {
  private readonly lines: string[] = [];

  write(...words: Words): void {
    const flat: string[] = [];
    for (const w of words) {
      if (typeof w === "string") flat.push(w);
      else flat.push(...w);
    }
    this.lines.push(flat.join(" "));
  }

  /** ":NAME - [0:0]", the line that creates (or flushes) a chain. */
  writeChain(name: string): void {
    this.lines.push(`:${name} - [0:0]`);
  }

  get count(): number {
    return this.lines.length;
  }

  text(): string {
    return this.lines.length === 0 ? "" : `${this.lines.join("\n")}\n`;
  }
}
