// What a semantic check sees: a way to report errors and warnings at a field path.
// The loader maps each path to the line/column of the nearest YAML node that exists.

export interface CheckContext {
  error(path: string, message: string): void;
  warn(path: string, message: string): void;
  /** True when an error was already reported at this path or below it (avoids cascades). */
  hasErrorsUnder(path: string): boolean;
}

export { p } from "../paths.js";

export function checkDuplicates<T>(
  items: readonly T[] | undefined,
  keyOf: (item: T) => string | undefined,
  pathOf: (i: number) => string,
  ctx: CheckContext,
  describe: (key: string) => string = (k) => `duplicate value ${JSON.stringify(k)}`,
): void {
  const seen = new Set<string>();
  (items ?? []).forEach((item, i) => {
    const k = keyOf(item);
    if (k === undefined) return;
    if (seen.has(k)) ctx.error(pathOf(i), describe(k));
    seen.add(k);
  });
}
