// The walk state dissect passes between decoders (one Step per header to decode) and the helpers every
// decoder shares: the IP context an L4 checksum needs, error and payload layers that end the walk.
import type { WireError } from "./errors.js";
import type { Layer, PayloadLayer } from "./layers.js";

/** Where the L4 header sits and what its checksum needs from the IP header around it. */
export type IpContext = {
  version: 4 | 6;
  src4: number;
  dst4: number;
  /** Offset of the IPv6 header (its addresses feed the pseudo-header). */
  ip6Offset: number;
  /** Upper-layer length as the IP header announces it. */
  l4Length: number;
  /** The datagram extends past the captured bytes. */
  truncated: boolean;
  /** Inside an ICMP error: no tunnels, no further quoting. */
  quoted: boolean;
};

export type Step =
  | { kind: "eth" | "sll" | "sll2" | "ip" | "ipv4" | "ipv6"; offset: number; end: number; quoted: boolean }
  | { kind: "ether"; offset: number; end: number; etherType: number }
  | { kind: "l4"; offset: number; end: number; protocol: number; ip: IpContext }
  | { kind: "done" };

export const DONE: Step = { kind: "done" };

/** Ends the walk with an error layer. */
export function failed(layers: Layer[], e: WireError): Step {
  layers.push({ proto: "error", layer: e.layer, field: e.field, offset: e.offset, reason: e.reason });
  return DONE;
}

/** Ends the walk with a payload layer (skipped when empty and unremarkable). */
export function payload(
  layers: Layer[],
  offset: number,
  end: number,
  announcedEnd: number,
  extra: Omit<PayloadLayer, "proto" | "len" | "wireLen"> = {},
): Step {
  const len = Math.max(0, end - offset);
  const cut = announcedEnd > end ? { wireLen: announcedEnd - offset } : {};
  if (len > 0 || Object.keys(extra).length > 0) layers.push({ proto: "payload", len, ...cut, ...extra });
  return DONE;
}

