// Go-style durations for lab flags and commands ("10s", "1m30s", "500ms", "2h"), and sleep's
// plain seconds ("5", "0.5"), in integer nanoseconds.
import { err, ok, type Result } from "../util/result.js";

const UNIT_NS: Readonly<Record<string, number>> = { ns: 1, us: 1e3, "µs": 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

export function parseGoDuration(text: string): Result<number, string> {
  if (text === "0") return ok(0);
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (m === null) return err(`invalid duration "${text}" (examples: 10s, 1m30s, 500ms)`);
    total += Number(m[1]) * UNIT_NS[m[2]!]!;
    pos = re.lastIndex;
  }
  if (text.length === 0) return err("empty duration");
  return ok(Math.round(total));
}

/** sleep's argument: seconds, optionally with a suffix s, m, h (as GNU sleep). */
export function parseSleep(text: string): Result<number, string> {
  const m = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text);
  if (m === null) return err(`sleep: invalid time interval "${text}"`);
  const factor = m[2] === "m" ? 60e9 : m[2] === "h" ? 3600e9 : 1e9;
  return ok(Math.round(Number(m[1]) * factor));
}
