// Wall-clock values workloads print (HTTP Date headers, ping's timestamps), derived from simulated
// time plus a fixed epoch so runs stay deterministic.

/** Default epoch of simulated time 0: 2025-01-01T00:00:00Z. */
export const DEFAULT_EPOCH_MS = Date.UTC(2025, 0, 1);

/** RFC 9110 IMF-fixdate ("Wed, 01 Jan 2025 00:00:00 GMT") of simulated time nowNs. */
export function httpDate(nowNs: number, epochMs = DEFAULT_EPOCH_MS): string {
  return new Date(epochMs + Math.floor(nowNs / 1e6)).toUTCString();
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;

/** nginx's $time_local in UTC ("02/Dec/2026:16:18:25 +0000"). */
export function nginxLocalTime(nowNs: number, epochMs = DEFAULT_EPOCH_MS): string {
  const d = new Date(epochMs + Math.floor(nowNs / 1e6));
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} +0000`;
}
