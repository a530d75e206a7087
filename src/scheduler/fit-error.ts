// The FailedScheduling message of a pod no node fits (framework.FitError.Error(), v1.30):
// "0/N nodes are available: <PreFilter message>. <histogram>. <PostFilter message>" where the histogram
// counts each reason over the rejected nodes as "<count> <reason>", sorted as Go's sort.Strings does.

/** Go's sort.Strings order: byte-wise UTF-8, which is code point order. */
export function compareGoStrings(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i)!;
    const cb = b.codePointAt(j)!;
    if (ca !== cb) return ca < cb ? -1 : 1;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return a.length - i === 0 ? (b.length - j === 0 ? 0 : -1) : 1;
}

/** "<count> <reason>" entries, sorted. */
export function reasonHistogram(statuses: Iterable<{ readonly reasons: readonly string[] }>): string[] {
  const counts = new Map<string, number>();
  for (const s of statuses) for (const r of s.reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([reason, n]) => `${n} ${reason}`).sort(compareGoStrings);
}

export function fitErrorMessage(
  numAllNodes: number,
  statuses: Iterable<{ readonly reasons: readonly string[] }>,
  preFilterMsg: string,
  postFilterMsg: string,
): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (preFilterMsg !== "") msg += ` ${preFilterMsg}.`;
  else {
    const histogram = reasonHistogram(statuses);
    if (histogram.length > 0) msg += ` ${histogram.join(", ")}.`;
  }
  if (postFilterMsg !== "") msg += ` ${postFilterMsg}`;
  return msg;
}
