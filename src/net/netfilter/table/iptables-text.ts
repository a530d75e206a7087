// iptables' own text for one rule: a line split into words as iptables-restore splits it, and the
// arguments ("-p tcp -m tcp --dport 80 -j DNAT --to-destination ..") parsed into a rule spec, so
// rules written for the kernel (kube-proxy's, a test's) run unchanged here. Errors name the option.

import { err, ok, type Result } from "../../../util/result.js";
import type { CtMatchStateName } from "../ct-state.js";
import { markTarget, REJECT_WITH, type AddrType, type NfRuleSpec, type NfTargetSpec, type RecentSpec, type RejectWith } from "./spec.js";
import { TcpFlagBit } from "../conntrack/tcp-states.js";

const SPACE = 0x20;
const TAB = 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Splits a line into words as iptables-restore does: whitespace-separated, "double quotes" group, backslash escapes. */
export function splitWords(line: string): Result<string[], string> {
  const words: string[] = [];
  const n = line.length;
  let i = 0;
  for (;;) {
    while (i < n && (line.charCodeAt(i) === SPACE || line.charCodeAt(i) === TAB)) i++;
    if (i >= n) return ok(words);
    // One word: runs of plain characters are sliced, quotes and escapes are resolved as they come.
    let word = "";
    let from = i;
    let quoted = false;
    while (i < n) {
      const c = line.charCodeAt(i);
      if (c === BACKSLASH && i + 1 < n) {
        word += line.slice(from, i) + line[i + 1]!;
        i += 2;
        from = i;
      } else if (c === QUOTE) {
        word += line.slice(from, i);
        quoted = !quoted;
        from = ++i;
      } else if (!quoted && (c === SPACE || c === TAB)) {
        break;
      } else {
        i++;
      }
    }
    if (quoted) return err("unterminated quote");
    words.push(word + line.slice(from, i));
  }
}

const ICMP_TYPE_NAMES: { readonly [name: string]: [number, number?] } = {
  "echo-reply": [0],
  "destination-unreachable": [3],
  "network-unreachable": [3, 0],
  "host-unreachable": [3, 1],
  "protocol-unreachable": [3, 2],
  "port-unreachable": [3, 3],
  "fragmentation-needed": [3, 4],
  "source-quench": [4],
  redirect: [5],
  "echo-request": [8],
  "time-exceeded": [11],
  "ttl-zero-during-transit": [11, 0],
  "parameter-problem": [12],
  "timestamp-request": [13],
  "timestamp-reply": [14],
};

function parseNumber(text: string): number | null {
  if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(text)) return null;
  const n = Number(text);
  return n > 0xffffffff ? null : n;
}

function parseValueMask(text: string): { value: number; mask?: number } | null {
  const [v, m] = text.split("/");
  const value = parseNumber(v ?? "");
  if (value === null) return null;
  if (m === undefined) return { value };
  const mask = parseNumber(m);
  return mask === null ? null : { value, mask };
}

function parseTcpFlagList(text: string): number | null {
  if (text === "NONE") return 0;
  if (text === "ALL") return 0x3f;
  let bits = 0;
  for (const name of text.split(",")) {
    const bit = (TcpFlagBit as { readonly [k: string]: number })[name];
    if (bit === undefined) return null;
    bits |= bit;
  }
  return bits;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Parses the arguments of one rule (everything after "-A CHAIN"). */
export function parseRuleArgs(words: readonly string[]): Result<NfRuleSpec, string> {
  const spec: Mutable<Omit<NfRuleSpec, "target">> = {};
  let target: NfTargetSpec | null = null;
  let invert = false;
  let targetName = "";
  const recent: Mutable<Partial<RecentSpec>> = {};
  let hasRecent = false;
  let statistic: { mode?: "random" | "nth"; probability?: number; every?: number; packet?: number; invert?: boolean } | null = null;
  const natOpts: { to?: string; toPorts?: string; random?: boolean; randomFully?: boolean; persistent?: boolean } = {};
  let rejectWith: RejectWith | undefined;
  let mark: NfTargetSpec | null = null;
  let logPrefix: string | undefined;
  let notrack = false;

  // The cursor and helpers live outside the loop: restore parses every rule of a large ruleset.
  let i = 0;
  let w = "";
  let wasInverted = false;
  const next = (): string | null => (i + 1 < words.length ? words[++i]! : null);
  const need = (): Result<string, string> => {
    const value = next();
    return value === null ? err(`option ${w} needs a value`) : ok(value);
  };
  const bang = (text: string): string => (wasInverted ? `!${text}` : text);
  for (; i < words.length; i++) {
    w = words[i]!;
    if (w === "!") {
      invert = true;
      continue;
    }
    wasInverted = invert;
    invert = false;
    let v: Result<string, string>;
    switch (w) {
      case "-s":
      case "--source":
        if (!(v = need()).ok) return v;
        spec.src = bang(v.value);
        break;
      case "-d":
      case "--destination":
        if (!(v = need()).ok) return v;
        spec.dst = bang(v.value);
        break;
      case "-p":
      case "--protocol":
        if (!(v = need()).ok) return v;
        spec.proto = bang(v.value);
        break;
      case "-i":
      case "--in-interface":
        if (!(v = need()).ok) return v;
        spec.inIface = bang(v.value);
        break;
      case "-o":
      case "--out-interface":
        if (!(v = need()).ok) return v;
        spec.outIface = bang(v.value);
        break;
      case "-m":
      case "--match":
        if (!(v = need()).ok) return v;
        break;
      case "--sport":
      case "--source-port":
        if (!(v = need()).ok) return v;
        spec.sport = bang(v.value);
        break;
      case "--dport":
      case "--destination-port":
        if (!(v = need()).ok) return v;
        spec.dport = bang(v.value);
        break;
      case "--dports":
      case "--destination-ports":
      case "--sports":
      case "--source-ports":
      case "--ports": {
        if (!(v = need()).ok) return v;
        const side = w.startsWith("--d") ? "dst" : w.startsWith("--s") ? "src" : "any";
        spec.multiport = { side, ports: v.value.split(","), invert: wasInverted };
        break;
      }
      case "--syn":
        spec.tcpFlags = { mask: TcpFlagBit.SYN | TcpFlagBit.RST | TcpFlagBit.ACK | TcpFlagBit.FIN, comp: TcpFlagBit.SYN, invert: wasInverted };
        break;
      case "--tcp-flags": {
        const m = next();
        const c = next();
        const mask = m === null ? null : parseTcpFlagList(m);
        const comp = c === null ? null : parseTcpFlagList(c);
        if (mask === null || comp === null) return err("--tcp-flags needs MASK COMP flag lists");
        spec.tcpFlags = { mask, comp, invert: wasInverted };
        break;
      }
      case "--icmp-type": {
        if (!(v = need()).ok) return v;
        const named = ICMP_TYPE_NAMES[v.value];
        const [t, c] = named ?? v.value.split("/").map(Number);
        if (t === undefined || !Number.isInteger(t) || (c !== undefined && !Number.isInteger(c))) return err(`bad --icmp-type "${v.value}"`);
        spec.icmpType = { type: t, ...(c !== undefined ? { code: c } : {}), invert: wasInverted };
        break;
      }
      case "--mark": {
        if (!(v = need()).ok) return v;
        const vm = parseValueMask(v.value);
        if (vm === null) return err(`bad --mark "${v.value}"`);
        spec.mark = { ...vm, invert: wasInverted };
        break;
      }
      case "--ctstate":
      case "--state":
        if (!(v = need()).ok) return v;
        spec.ctstate = { states: v.value.split(",") as CtMatchStateName[], invert: wasInverted };
        break;
      case "--ctdir":
        if (!(v = need()).ok) return v;
        if (v.value !== "ORIGINAL" && v.value !== "REPLY") return err(`bad --ctdir "${v.value}"`);
        spec.ctdir = v.value;
        break;
      case "--src-type":
      case "--dst-type":
        if (!(v = need()).ok) return v;
        spec[w === "--src-type" ? "srcType" : "dstType"] = { type: v.value as AddrType, invert: wasInverted };
        break;
      case "--limit-iface-in":
      case "--limit-iface-out":
        break;
      case "--comment":
        if (!(v = need()).ok) return v;
        spec.comment = v.value;
        break;
      case "--mode":
        if (!(v = need()).ok) return v;
        if (v.value !== "random" && v.value !== "nth") return err(`bad --mode "${v.value}"`);
        statistic = { ...(statistic ?? {}), mode: v.value };
        break;
      case "--probability":
        if (!(v = need()).ok) return v;
        statistic = { ...(statistic ?? {}), probability: Number(v.value), invert: wasInverted };
        break;
      case "--every":
        if (!(v = need()).ok) return v;
        statistic = { ...(statistic ?? {}), every: Number(v.value), invert: wasInverted };
        break;
      case "--packet":
        if (!(v = need()).ok) return v;
        statistic = { ...(statistic ?? {}), packet: Number(v.value) };
        break;
      case "--set":
      case "--rcheck":
      case "--update":
      case "--remove":
        hasRecent = true;
        recent.op = w.slice(2) as RecentSpec["op"];
        recent.invert = wasInverted;
        break;
      case "--name":
        if (!(v = need()).ok) return v;
        recent.name = v.value;
        break;
      case "--seconds":
        if (!(v = need()).ok) return v;
        recent.seconds = Number(v.value);
        break;
      case "--hitcount":
        if (!(v = need()).ok) return v;
        recent.hitcount = Number(v.value);
        break;
      case "--reap":
        recent.reap = true;
        break;
      case "--rsource":
        recent.side = "source";
        break;
      case "--rdest":
        recent.side = "dest";
        break;
      case "--mask": {
        if (!(v = need()).ok) return v;
        const parts = v.value.split(".").map(Number);
        if (parts.length !== 4 || parts.some((p) => !(p >= 0 && p <= 255))) return err(`bad --mask "${v.value}"`);
        recent.mask = ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0;
        break;
      }
      case "-j":
      case "--jump":
      case "-g":
      case "--goto":
        if (!(v = need()).ok) return v;
        targetName = v.value;
        if (w === "-g" || w === "--goto") target = { kind: "GOTO", chain: v.value };
        break;
      case "--reject-with":
        if (!(v = need()).ok) return v;
        if (!(REJECT_WITH as readonly string[]).includes(v.value)) return err(`unknown --reject-with "${v.value}"`);
        rejectWith = v.value as RejectWith;
        break;
      case "--to-destination":
      case "--to-source":
      case "--to":
        if (!(v = need()).ok) return v;
        natOpts.to = v.value;
        break;
      case "--to-ports":
        if (!(v = need()).ok) return v;
        natOpts.toPorts = v.value;
        break;
      case "--random":
        natOpts.random = true;
        break;
      case "--random-fully":
        natOpts.randomFully = true;
        break;
      case "--persistent":
        natOpts.persistent = true;
        break;
      case "--set-xmark":
      case "--set-mark":
      case "--or-mark":
      case "--and-mark":
      case "--xor-mark": {
        if (!(v = need()).ok) return v;
        const vm = parseValueMask(v.value);
        if (vm === null) return err(`bad ${w} "${v.value}"`);
        const op = w === "--set-xmark" ? "xset" : w === "--set-mark" ? "set" : (w.slice(2, -5) as "or" | "and" | "xor");
        mark = markTarget(op, vm.value, vm.mask);
        break;
      }
      case "--log-prefix":
        if (!(v = need()).ok) return v;
        logPrefix = v.value;
        break;
      case "--log-level":
        if (!(v = need()).ok) return v;
        break;
      case "--notrack":
        notrack = true;
        break;
      case "-w":
      case "--wait":
        break;
      default:
        return err(`unsupported option "${w}"`);
    }
  }
  if (hasRecent) {
    if (recent.name === undefined) recent.name = "DEFAULT";
    spec.recent = recent as RecentSpec;
  }
  if (statistic !== null) {
    if (statistic.mode === undefined) return err("statistic needs --mode");
    spec.statistic = { ...statistic, mode: statistic.mode };
  }
  let chosen: NfTargetSpec;
  if (target !== null) {
    chosen = target;
  } else {
    switch (targetName) {
      case "": {
        // iptables accepts a rule without -j: it counts and falls through. Target options need a target.
        const targetOptions = Object.keys(natOpts).length > 0 || rejectWith !== undefined || logPrefix !== undefined || mark !== null || notrack;
        if (targetOptions) return err("target options given without a target (-j)");
        chosen = { kind: "NONE" };
        break;
      }
      case "ACCEPT":
      case "DROP":
      case "RETURN":
        chosen = { kind: targetName };
        break;
      case "REJECT":
        chosen = rejectWith === undefined ? { kind: "REJECT" } : { kind: "REJECT", with: rejectWith };
        break;
      case "DNAT":
      case "SNAT":
        if (natOpts.to === undefined) return err(`${targetName} needs --to-${targetName === "DNAT" ? "destination" : "source"}`);
        chosen = { kind: targetName, to: natOpts.to, ...flagsOf(natOpts) };
        break;
      case "MASQUERADE":
      case "REDIRECT":
        chosen = { kind: targetName, ...(natOpts.toPorts !== undefined ? { toPorts: natOpts.toPorts } : {}), ...flagsOf(natOpts) };
        break;
      case "MARK":
        if (mark === null) return err("MARK needs --set-xmark/--set-mark/--or-mark/--and-mark/--xor-mark");
        chosen = mark;
        break;
      case "LOG":
        chosen = logPrefix === undefined ? { kind: "LOG" } : { kind: "LOG", prefix: logPrefix };
        break;
      case "NOTRACK":
        chosen = { kind: "NOTRACK" };
        break;
      case "CT":
        if (!notrack) return err("only CT --notrack is supported");
        chosen = { kind: "NOTRACK" };
        break;
      default:
        chosen = { kind: "JUMP", chain: targetName };
    }
  }
  return ok({ ...spec, target: chosen });
}

function flagsOf(o: { random?: boolean; randomFully?: boolean; persistent?: boolean }): { random?: boolean; randomFully?: boolean; persistent?: boolean } {
  return {
    ...(o.random === true ? { random: true } : {}),
    ...(o.randomFully === true ? { randomFully: true } : {}),
    ...(o.persistent === true ? { persistent: true } : {}),
  };
}
