// BGP-4 messages (RFC 4271) as bytes: OPEN with capabilities (RFC 5492: multiprotocol IPv4 unicast,
// route refresh, 4-octet AS numbers per RFC 6793), UPDATE with IPv4 NLRI and withdrawn routes and the
// attributes an iBGP full mesh carries (ORIGIN, AS_PATH, NEXT_HOP, LOCAL_PREF), KEEPALIVE and
// NOTIFICATION. Decoding checks what RFC 4271 section 6 checks and returns the NOTIFICATION
// code/subcode the receiver must send, with the byte offset of the problem.
import { err, ok, type Result } from "../../../util/result.js";

export const BGP_PORT = 179;
export const BGP_HEADER = 19;
export const BGP_MAX_MESSAGE = 4096;
/** AS_TRANS (RFC 6793): the 2-octet My AS of a speaker whose AS needs 4 octets. */
export const AS_TRANS = 23456;

export const BgpType = { OPEN: 1, UPDATE: 2, NOTIFICATION: 3, KEEPALIVE: 4 } as const;
export type BgpType = (typeof BgpType)[keyof typeof BgpType];

export const BgpAttr = { ORIGIN: 1, AS_PATH: 2, NEXT_HOP: 3, MED: 4, LOCAL_PREF: 5 } as const;
export const AttrFlag = { OPTIONAL: 0x80, TRANSITIVE: 0x40, PARTIAL: 0x20, EXTENDED: 0x10 } as const;
export const Origin = { IGP: 0, EGP: 1, INCOMPLETE: 2 } as const;
export const Capability = { MULTIPROTOCOL: 1, ROUTE_REFRESH: 2, FOUR_OCTET_AS: 65 } as const;

/** NOTIFICATION error codes (RFC 4271 4.5) and the subcodes cnisim sends. */
export const BgpError = { HEADER: 1, OPEN: 2, UPDATE: 3, HOLD_TIMER_EXPIRED: 4, FSM: 5, CEASE: 6 } as const;
export const HeaderSub = { NOT_SYNCHRONIZED: 1, BAD_LENGTH: 2, BAD_TYPE: 3 } as const;
export const OpenSub = { UNSUPPORTED_VERSION: 1, BAD_PEER_AS: 2, BAD_BGP_ID: 3, UNSUPPORTED_PARAM: 4, UNACCEPTABLE_HOLD: 6 } as const;
export const UpdateSub = {
  MALFORMED_ATTRIBUTES: 1,
  UNRECOGNIZED_WELL_KNOWN: 2,
  MISSING_WELL_KNOWN: 3,
  ATTRIBUTE_FLAGS: 4,
  ATTRIBUTE_LENGTH: 5,
  INVALID_ORIGIN: 6,
  INVALID_NEXT_HOP: 8,
  INVALID_NETWORK: 10,
  MALFORMED_AS_PATH: 11,
} as const;

export interface BgpCapability {
  readonly code: number;
  readonly value: Uint8Array;
}

export interface BgpOpen {
  readonly version: number;
  /** The 2-octet My AS field (AS_TRANS when the real AS needs 4 octets). */
  readonly myAs: number;
  readonly holdTime: number;
  readonly bgpId: number;
  readonly capabilities: readonly BgpCapability[];
}

export interface Ipv4Route {
  readonly prefix: number;
  readonly length: number;
}

export interface PathAttributes {
  readonly origin: number;
  /** AS_SEQUENCE members (empty for routes originated inside the AS). */
  readonly asPath: readonly number[];
  readonly nextHop: number;
  readonly localPref: number | null;
}

export interface BgpUpdate {
  readonly withdrawn: readonly Ipv4Route[];
  /** Null when the UPDATE only withdraws. */
  readonly attributes: PathAttributes | null;
  readonly nlri: readonly Ipv4Route[];
}

export interface BgpNotification {
  readonly code: number;
  readonly subcode: number;
  readonly data: Uint8Array;
}

export type BgpMessage =
  | { readonly type: typeof BgpType.OPEN; readonly open: BgpOpen }
  | { readonly type: typeof BgpType.UPDATE; readonly update: BgpUpdate }
  | { readonly type: typeof BgpType.NOTIFICATION; readonly notification: BgpNotification }
  | { readonly type: typeof BgpType.KEEPALIVE };

export interface BgpDecodeError {
  /** Byte offset inside the message. */
  readonly offset: number;
  readonly field: string;
  readonly reason: string;
  /** The NOTIFICATION to answer with. */
  readonly code: number;
  readonly subcode: number;
}

// ---- encoding -------------------------------------------------------------------------------------

class Writer {
  private buf = new Uint8Array(64);
  length = 0;
  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
  u8(v: number): void {
    this.ensure(1);
    this.buf[this.length++] = v & 0xff;
  }
  u16(v: number): void {
    this.u8(v >>> 8);
    this.u8(v);
  }
  u32(v: number): void {
    this.u16(v >>> 16);
    this.u16(v & 0xffff);
  }
  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  set16(at: number, v: number): void {
    this.buf[at] = (v >>> 8) & 0xff;
    this.buf[at + 1] = v & 0xff;
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function header(w: Writer, type: number): void {
  for (let i = 0; i < 16; i++) w.u8(0xff);
  w.u16(0);
  w.u8(type);
}

function finish(w: Writer): Uint8Array {
  w.set16(16, w.length);
  return w.done();
}

export function encodeOpen(o: BgpOpen): Uint8Array {
  const w = new Writer();
  header(w, BgpType.OPEN);
  w.u8(o.version);
  w.u16(o.myAs);
  w.u16(o.holdTime);
  w.u32(o.bgpId);
  const params = new Writer();
  for (const c of o.capabilities) {
    params.u8(2); // parameter type 2: Capabilities
    params.u8(2 + c.value.length);
    params.u8(c.code);
    params.u8(c.value.length);
    params.bytes(c.value);
  }
  w.u8(params.length);
  w.bytes(params.done());
  return finish(w);
}

function writeRoutes(w: Writer, routes: readonly Ipv4Route[]): void {
  for (const r of routes) {
    w.u8(r.length);
    const n = Math.ceil(r.length / 8);
    for (let i = 0; i < n; i++) w.u8(r.prefix >>> (24 - 8 * i));
  }
}

function attribute(w: Writer, flags: number, type: number, value: Writer): void {
  const extended = value.length > 255;
  w.u8(flags | (extended ? AttrFlag.EXTENDED : 0));
  w.u8(type);
  if (extended) w.u16(value.length);
  else w.u8(value.length);
  w.bytes(value.done());
}

/** `fourOctetAs`: both sides announced the 4-octet AS capability (AS_PATH members are 4 bytes). */
export function encodeUpdate(u: BgpUpdate, fourOctetAs: boolean): Uint8Array {
  const w = new Writer();
  header(w, BgpType.UPDATE);
  const withdrawn = new Writer();
  writeRoutes(withdrawn, u.withdrawn);
  w.u16(withdrawn.length);
  w.bytes(withdrawn.done());
  const attrs = new Writer();
  const a = u.attributes;
  if (a !== null) {
    const origin = new Writer();
    origin.u8(a.origin);
    attribute(attrs, AttrFlag.TRANSITIVE, BgpAttr.ORIGIN, origin);
    const path = new Writer();
    if (a.asPath.length > 0) {
      path.u8(2); // AS_SEQUENCE
      path.u8(a.asPath.length);
      for (const as of a.asPath) fourOctetAs ? path.u32(as) : path.u16(as > 0xffff ? AS_TRANS : as);
    }
    attribute(attrs, AttrFlag.TRANSITIVE, BgpAttr.AS_PATH, path);
    const hop = new Writer();
    hop.u32(a.nextHop);
    attribute(attrs, AttrFlag.TRANSITIVE, BgpAttr.NEXT_HOP, hop);
    if (a.localPref !== null) {
      const pref = new Writer();
      pref.u32(a.localPref);
      attribute(attrs, AttrFlag.TRANSITIVE, BgpAttr.LOCAL_PREF, pref);
    }
  }
  w.u16(attrs.length);
  w.bytes(attrs.done());
  writeRoutes(w, u.nlri);
  return finish(w);
}

export function encodeKeepalive(): Uint8Array {
  const w = new Writer();
  header(w, BgpType.KEEPALIVE);
  return finish(w);
}

export function encodeNotification(n: BgpNotification): Uint8Array {
  const w = new Writer();
  header(w, BgpType.NOTIFICATION);
  w.u8(n.code);
  w.u8(n.subcode);
  w.bytes(n.data);
  return finish(w);
}

/** Capabilities a BIRD speaker as Calico runs it announces: IPv4 unicast, route refresh, 4-octet AS. */
export function standardCapabilities(asNumber: number): BgpCapability[] {
  const as4 = new Uint8Array(4);
  new DataView(as4.buffer).setUint32(0, asNumber >>> 0);
  return [
    { code: Capability.MULTIPROTOCOL, value: Uint8Array.of(0, 1, 0, 1) },
    { code: Capability.ROUTE_REFRESH, value: new Uint8Array(0) },
    { code: Capability.FOUR_OCTET_AS, value: as4 },
  ];
}

/** The 4-octet AS a peer announced, or null when it did not send the capability. */
export function fourOctetAsOf(o: BgpOpen): number | null {
  const c = o.capabilities.find((x) => x.code === Capability.FOUR_OCTET_AS && x.value.length === 4);
  return c === undefined ? null : new DataView(c.value.buffer, c.value.byteOffset, 4).getUint32(0);
}

// ---- decoding -------------------------------------------------------------------------------------

const fail = (offset: number, field: string, reason: string, code: number, subcode: number): Result<never, BgpDecodeError> =>
  err({ offset, field, reason, code, subcode });

const u16 = (b: Uint8Array, at: number): number => (b[at]! << 8) | b[at + 1]!;
const u32 = (b: Uint8Array, at: number): number => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

/** Length of the message at the start of `b` once its header is complete, else 0 (wait for more). */
export function peekLength(b: Uint8Array): number {
  return b.length < BGP_HEADER ? 0 : u16(b, 16);
}

export function decodeMessage(b: Uint8Array, fourOctetAs: boolean): Result<BgpMessage, BgpDecodeError> {
  if (b.length < BGP_HEADER) return fail(0, "header", `${b.length} bytes, a header has 19`, BgpError.HEADER, HeaderSub.BAD_LENGTH);
  for (let i = 0; i < 16; i++) if (b[i] !== 0xff) return fail(i, "marker", "marker is not all ones", BgpError.HEADER, HeaderSub.NOT_SYNCHRONIZED);
  const length = u16(b, 16);
  const type = b[18]!;
  const badLength = (): Result<never, BgpDecodeError> => fail(16, "length", `length ${length} invalid for type ${type}`, BgpError.HEADER, HeaderSub.BAD_LENGTH);
  if (length < BGP_HEADER || length > BGP_MAX_MESSAGE || length !== b.length) return badLength();
  switch (type) {
    case BgpType.OPEN:
      return length < 29 ? badLength() : decodeOpen(b);
    case BgpType.UPDATE:
      return length < 23 ? badLength() : decodeUpdate(b, fourOctetAs);
    case BgpType.NOTIFICATION:
      return length < 21 ? badLength() : ok({ type, notification: { code: b[19]!, subcode: b[20]!, data: b.slice(21) } });
    case BgpType.KEEPALIVE:
      return length !== BGP_HEADER ? badLength() : ok({ type });
    default:
      return fail(18, "type", `unknown message type ${type}`, BgpError.HEADER, HeaderSub.BAD_TYPE);
  }
}

function decodeOpen(b: Uint8Array): Result<BgpMessage, BgpDecodeError> {
  const version = b[19]!;
  if (version !== 4) return fail(19, "version", `version ${version}, only 4 is supported`, BgpError.OPEN, OpenSub.UNSUPPORTED_VERSION);
  const holdTime = u16(b, 22);
  if (holdTime === 1 || holdTime === 2) return fail(22, "holdTime", `hold time ${holdTime} s (must be 0 or at least 3)`, BgpError.OPEN, OpenSub.UNACCEPTABLE_HOLD);
  const bgpId = u32(b, 24);
  if (bgpId === 0) return fail(24, "bgpId", "BGP identifier 0.0.0.0", BgpError.OPEN, OpenSub.BAD_BGP_ID);
  const paramLength = b[28]!;
  if (29 + paramLength !== b.length) return fail(28, "optParmLen", `parameters of ${paramLength} bytes in a ${b.length}-byte OPEN`, BgpError.HEADER, HeaderSub.BAD_LENGTH);
  const capabilities: BgpCapability[] = [];
  for (let at = 29; at < b.length; ) {
    if (at + 2 > b.length) return fail(at, "optParm", "truncated parameter", BgpError.OPEN, 0);
    const ptype = b[at]!;
    const plen = b[at + 1]!;
    if (at + 2 + plen > b.length) return fail(at + 1, "optParm.length", "parameter runs past the message", BgpError.OPEN, 0);
    if (ptype !== 2) return fail(at, "optParm.type", `optional parameter type ${ptype}`, BgpError.OPEN, OpenSub.UNSUPPORTED_PARAM);
    for (let c = at + 2; c < at + 2 + plen; ) {
      if (c + 2 > at + 2 + plen || c + 2 + b[c + 1]! > at + 2 + plen) return fail(c, "capability", "capability runs past its parameter", BgpError.OPEN, 0);
      capabilities.push({ code: b[c]!, value: b.slice(c + 2, c + 2 + b[c + 1]!) });
      c += 2 + b[c + 1]!;
    }
    at += 2 + plen;
  }
  return ok({ type: BgpType.OPEN, open: { version, myAs: u16(b, 20), holdTime, bgpId, capabilities } });
}

function readRoutes(b: Uint8Array, from: number, to: number, field: string, subcode: number): Result<Ipv4Route[], BgpDecodeError> {
  const out: Ipv4Route[] = [];
  for (let at = from; at < to; ) {
    const length = b[at]!;
    if (length > 32) return fail(at, field, `prefix length ${length}`, BgpError.UPDATE, subcode);
    const n = Math.ceil(length / 8);
    if (at + 1 + n > to) return fail(at, field, "prefix runs past its field", BgpError.UPDATE, subcode);
    let prefix = 0;
    for (let i = 0; i < n; i++) prefix |= b[at + 1 + i]! << (24 - 8 * i);
    const mask = length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0;
    out.push({ prefix: (prefix & mask) >>> 0, length });
    at += 1 + n;
  }
  return ok(out);
}

function decodeUpdate(b: Uint8Array, fourOctetAs: boolean): Result<BgpMessage, BgpDecodeError> {
  const wlen = u16(b, 19);
  if (21 + wlen + 2 > b.length) return fail(19, "withdrawnRoutesLength", `${wlen} bytes of withdrawn routes`, BgpError.UPDATE, UpdateSub.MALFORMED_ATTRIBUTES);
  const withdrawn = readRoutes(b, 21, 21 + wlen, "withdrawnRoutes", UpdateSub.MALFORMED_ATTRIBUTES);
  if (!withdrawn.ok) return withdrawn;
  const alenAt = 21 + wlen;
  const alen = u16(b, alenAt);
  const attrEnd = alenAt + 2 + alen;
  if (attrEnd > b.length) return fail(alenAt, "totalPathAttributeLength", `${alen} bytes of attributes`, BgpError.UPDATE, UpdateSub.MALFORMED_ATTRIBUTES);
  let origin = -1;
  let asPath: number[] | null = null;
  let nextHop = -1;
  let localPref: number | null = null;
  for (let at = alenAt + 2; at < attrEnd; ) {
    if (at + 3 > attrEnd) return fail(at, "pathAttribute", "truncated attribute header", BgpError.UPDATE, UpdateSub.MALFORMED_ATTRIBUTES);
    const flags = b[at]!;
    const type = b[at + 1]!;
    const extended = (flags & AttrFlag.EXTENDED) !== 0;
    const len = extended ? u16(b, at + 2) : b[at + 2]!;
    const v = at + (extended ? 4 : 3);
    if (v + len > attrEnd) return fail(at, `pathAttribute[${type}]`, "attribute runs past the attribute list", BgpError.UPDATE, UpdateSub.ATTRIBUTE_LENGTH);
    const wellKnown = type >= BgpAttr.ORIGIN && type <= BgpAttr.LOCAL_PREF && type !== BgpAttr.MED;
    if (wellKnown && (flags & (AttrFlag.OPTIONAL | AttrFlag.TRANSITIVE)) !== AttrFlag.TRANSITIVE) {
      return fail(at, `pathAttribute[${type}].flags`, `flags 0x${flags.toString(16)} on a well-known attribute`, BgpError.UPDATE, UpdateSub.ATTRIBUTE_FLAGS);
    }
    switch (type) {
      case BgpAttr.ORIGIN:
        if (len !== 1) return fail(at, "ORIGIN", `length ${len}`, BgpError.UPDATE, UpdateSub.ATTRIBUTE_LENGTH);
        origin = b[v]!;
        if (origin > Origin.INCOMPLETE) return fail(v, "ORIGIN", `value ${origin}`, BgpError.UPDATE, UpdateSub.INVALID_ORIGIN);
        break;
      case BgpAttr.AS_PATH: {
        const width = fourOctetAs ? 4 : 2;
        const path: number[] = [];
        for (let s = v; s < v + len; ) {
          if (s + 2 > v + len) return fail(s, "AS_PATH", "truncated segment", BgpError.UPDATE, UpdateSub.MALFORMED_AS_PATH);
          const count = b[s + 1]!;
          if (s + 2 + count * width > v + len) return fail(s, "AS_PATH", "segment runs past the attribute", BgpError.UPDATE, UpdateSub.MALFORMED_AS_PATH);
          for (let i = 0; i < count; i++) path.push(width === 4 ? u32(b, s + 2 + 4 * i) : u16(b, s + 2 + 2 * i));
          s += 2 + count * width;
        }
        asPath = path;
        break;
      }
      case BgpAttr.NEXT_HOP:
        if (len !== 4) return fail(at, "NEXT_HOP", `length ${len}`, BgpError.UPDATE, UpdateSub.ATTRIBUTE_LENGTH);
        nextHop = u32(b, v);
        if (nextHop === 0 || nextHop >>> 28 >= 0xe) return fail(v, "NEXT_HOP", "not a unicast address", BgpError.UPDATE, UpdateSub.INVALID_NEXT_HOP);
        break;
      case BgpAttr.LOCAL_PREF:
        if (len !== 4) return fail(at, "LOCAL_PREF", `length ${len}`, BgpError.UPDATE, UpdateSub.ATTRIBUTE_LENGTH);
        localPref = u32(b, v);
        break;
      default:
        if ((flags & AttrFlag.OPTIONAL) === 0) return fail(at, `pathAttribute[${type}]`, "unrecognized well-known attribute", BgpError.UPDATE, UpdateSub.UNRECOGNIZED_WELL_KNOWN);
    }
    at = v + len;
  }
  const nlri = readRoutes(b, attrEnd, b.length, "nlri", UpdateSub.INVALID_NETWORK);
  if (!nlri.ok) return nlri;
  if (nlri.value.length > 0) {
    const missing = origin < 0 ? "ORIGIN" : asPath === null ? "AS_PATH" : nextHop < 0 ? "NEXT_HOP" : null;
    if (missing !== null) return fail(alenAt, missing, `UPDATE with NLRI lacks ${missing}`, BgpError.UPDATE, UpdateSub.MISSING_WELL_KNOWN);
  }
  const attributes = origin >= 0 && asPath !== null && nextHop >= 0 ? { origin, asPath, nextHop, localPref } : null;
  return ok({ type: BgpType.UPDATE, update: { withdrawn: withdrawn.value, attributes, nlri: nlri.value } });
}
