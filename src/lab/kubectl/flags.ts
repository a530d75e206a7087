// kubectl's command-line flags (pflag rules): --name=value, --name value, -n value, -nvalue,
// -n=value, grouped boolean shorthands (-it), "--" ending the flags. Unknown flags are errors
// worded as kubectl words them.
import { err, ok, type Result } from "../../util/result.js";

export type FlagKind = "bool" | "string" | "list";

export interface FlagSpec {
  readonly kind: FlagKind;
  readonly short?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

export interface ParsedArgs {
  readonly args: string[];
  readonly flags: ReadonlyMap<string, string | boolean | string[]>;
  /** Words after "--". */
  readonly rest: string[] | null;
}

/** Flags every kubectl command takes. */
export const GLOBAL_FLAGS: FlagSpecs = { namespace: { kind: "string", short: "n" } };

const BOOL_TEXT: Readonly<Record<string, boolean>> = { true: true, false: false, "1": true, "0": false, t: true, f: false, TRUE: true, FALSE: false, True: true, False: false };

export function parseFlags(words: readonly string[], specs: FlagSpecs): Result<ParsedArgs, string> {
  const all: FlagSpecs = { ...GLOBAL_FLAGS, ...specs };
  const byShort = new Map<string, string>();
  for (const [name, s] of Object.entries(all)) if (s.short !== undefined) byShort.set(s.short, name);
  const args: string[] = [];
  const flags = new Map<string, string | boolean | string[]>();
  const set = (name: string, value: string | boolean): Result<null, string> => {
    const spec = all[name]!;
    if (spec.kind === "bool") {
      const b = typeof value === "boolean" ? value : BOOL_TEXT[value];
      if (b === undefined) return err(`invalid argument "${value}" for "--${name}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
      flags.set(name, b);
    } else if (spec.kind === "list") {
      const prev = flags.get(name);
      flags.set(name, [...(Array.isArray(prev) ? prev : []), ...String(value).split(",")]);
    } else flags.set(name, String(value));
    return ok(null);
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--") return ok({ args, flags, rest: words.slice(i + 1) });
    if (w.startsWith("--") && w.length > 2) {
      const eq = w.indexOf("=");
      const name = eq < 0 ? w.slice(2) : w.slice(2, eq);
      const spec = all[name];
      if (spec === undefined) return err(`unknown flag: --${name}`);
      if (eq >= 0) {
        const r = set(name, w.slice(eq + 1));
        if (!r.ok) return r;
      } else if (spec.kind === "bool") flags.set(name, true);
      else {
        const v = words[++i];
        if (v === undefined) return err(`flag needs an argument: --${name}`);
        set(name, v);
      }
    } else if (w.startsWith("-") && w.length > 1 && w !== "-") {
      const body = w.slice(1);
      for (let j = 0; j < body.length; j++) {
        const c = body[j]!;
        const name = byShort.get(c);
        if (name === undefined) return err(`unknown shorthand flag: '${c}' in ${w}`);
        const spec = all[name]!;
        if (spec.kind === "bool") {
          if (body[j + 1] === "=") {
            const r = set(name, body.slice(j + 2));
            if (!r.ok) return r;
            break;
          }
          flags.set(name, true);
          continue;
        }
        let value = body.slice(j + 1);
        if (value.startsWith("=")) value = value.slice(1);
        if (value === "") {
          const v = words[++i];
          if (v === undefined) return err(`flag needs an argument: '${c}' in -${c}`);
          value = v;
        }
        set(name, value);
        break;
      }
    } else args.push(w);
  }
  return ok({ args, flags, rest: null });
}

export const flagString = (p: ParsedArgs, name: string): string | undefined => {
  const v = p.flags.get(name);
  return typeof v === "string" ? v : undefined;
};

export const flagBool = (p: ParsedArgs, name: string): boolean => p.flags.get(name) === true;

export const flagList = (p: ParsedArgs, name: string): string[] => {
  const v = p.flags.get(name);
  return Array.isArray(v) ? v : [];
};
