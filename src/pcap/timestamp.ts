// Timestamp arithmetic for capture files: resolution -> nanoseconds, and the "seconds.nanoseconds" text form.

import type { TimestampResolution } from "./types.js";

const NS_PER_SECOND = 1_000_000_000n;

/** Largest exponents whose unit count per second still fits the 64-bit timestamp meaningfully. */
export const MAX_TSRESOL_EXPONENT = { 10: 19, 2: 63 } as const;

/** Decodes a pcapng if_tsresol byte: high bit clear = 10^-n seconds, set = 2^-n seconds. */
export function decodeTsresol(byte: number): TimestampResolution {
  return (byte & 0x80) === 0 ? { base: 10, exponent: byte } : { base: 2, exponent: byte & 0x7f };
}

/** Converts a count of timestamp units to nanoseconds (rounded down). */
export function unitsToNs(units: bigint, resolution: TimestampResolution): bigint {
  if (resolution.base === 10) {
    const shift = 9 - resolution.exponent;
    return shift >= 0 ? units * 10n ** BigInt(shift) : units / 10n ** BigInt(-shift);
  }
  return (units * NS_PER_SECOND) >> BigInt(resolution.exponent);
}

/** Formats nanoseconds since the epoch as "seconds.nnnnnnnnn" (tshark's frame.time_epoch form). */
export function formatTimestampNs(tsNs: bigint): string {
  const negative = tsNs < 0n;
  const abs = negative ? -tsNs : tsNs;
  const seconds = abs / NS_PER_SECOND;
  const fraction = (abs % NS_PER_SECOND).toString().padStart(9, "0");
  return `${negative ? "-" : ""}${seconds}.${fraction}`;
}
