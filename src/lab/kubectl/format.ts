// Small formatting rules of kubectl: ages (apimachinery duration.HumanDuration), label selectors
// (metav1.FormatLabelSelector), "<none>" for empty values, RFC 1123Z times for describe.
import type { LabelSelector } from "kubernetes-types/meta/v1.js";
import { compileSelector } from "../../k8s/selector.js";

/** duration.HumanDuration of `seconds`. */
export function humanDuration(totalSeconds: number): string {
  const s = Math.floor(totalSeconds);
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return `${s}s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 10) return s % 60 === 0 ? `${minutes}m` : `${minutes}m${s % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(s / 3600);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** metav1.FormatLabelSelector: "<none>" for an empty selector. */
export function formatSelector(sel: LabelSelector | undefined | null): string {
  if (sel === undefined || sel === null) return "<none>";
  const key = compileSelector(sel).key;
  return key === "" ? "<none>" : key;
}

/** labels.FormatLabels-style "a=1,b=2" of a plain map (sorted by key), "<none>" when empty. */
export function formatMap(map: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(map ?? {}).sort();
  return keys.length === 0 ? "<none>" : keys.map((k) => `${k}=${map![k]}`).join(",");
}

export const orNone = (s: string | undefined | null): string => (s === undefined || s === null || s === "" ? "<none>" : s);

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Go's time.RFC1123Z layout in UTC: "Mon, 01 Jul 2024 08:00:10 +0000". */
export function rfc1123z(timestamp: string | undefined): string {
  const ms = Date.parse(timestamp ?? "");
  if (Number.isNaN(ms)) return "";
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]}, ${p(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}
