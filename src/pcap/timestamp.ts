// Timestamp arithmetic for capture files: resolution -> nanoseconds, and the "seconds.nanoseconds" text form.

import type { TimestampResolution } from "./types.js";

const NS_PER_SECOND = 1_000_000_000n;

/** Largest exponents whose unit count per second still fits the 64-bit timestamp meaningfully. */
export const MAX_TSRESOL_EXPONENT = { 10: 19, 2: 63 } as const;

/** Decodes a pcapng if_tsresol byte: high bit clear = 10^-n seconds, set = 2^-n seconds. */
export function decodeTsresol(byte: number): TimestampResolution {
  return (byte & 0x80) === 0 ? { base: 10, exponent: byte } : { base: 2, exponent: byte & 0x7f };
}

/** ns = units * multiplier / divisor (rounded down), plus an offset; computed once per interface. */
export type TimestampScale = { readonly multiplier: bigint; readonly divisor: bigint; readonly offsetNs: bigint };

export function timestampScale(resolution: TimestampResolution, offsetSeconds: bigint): TimestampScale {
  const offsetNs = offsetSeconds * NS_PER_SECOND;
  if (resolution.base === 2) return { multiplier: NS_PER_SECOND, divisor: 1n << BigInt(resolution.exponent), offsetNs };
  const shift = 9 - resolution.exponent;
  return shift >= 0
    ? { multiplier: 10n ** BigInt(shift), divisor: 1n, offsetNs }
    : { multiplier: 1n, divisor: 10n ** BigInt(-shift), offsetNs };
}

/** Converts a count of timestamp units to nanoseconds since the epoch. */
export function unitsToNs(units: bigint, scale: TimestampScale): bigint {
  const scaled = units * scale.multiplier;
  return (scale.divisor === 1n ? scaled : scaled / scale.divisor) + scale.offsetNs;
}

/** Formats nanoseconds since the epoch as "seconds.nnnnnnnnn" (tshark's frame.time_epoch form). */
export function formatTimestampNs(tsNs: bigint): string {
  const negative = tsNs < 0n;
  const abs = negative ? -tsNs : tsNs;
  const seconds = abs / NS_PER_SECOND;
  const fraction = (abs % NS_PER_SECOND).toString().padStart(9, "0");
  return `${negative ? "-" : ""}${seconds}.${fraction}`;
}
