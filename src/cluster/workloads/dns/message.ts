// DNS messages (RFC 1035 4.1, EDNS0 OPT per RFC 6891): encode with name compression (RFC 1035
// 4.1.4: a name, or its longest suffix already written, becomes a pointer) and decode with pointer
// loop and bounds checks. Errors name the field and byte offset.

import { read16, read32, write16, write32 } from "../../../wire/bytes.js";
import { err, ok, type Result } from "../../../util/result.js";

export const DnsType = { A: 1, NS: 2, CNAME: 5, SOA: 6, PTR: 12, AAAA: 28, SRV: 33, OPT: 41 } as const;
export const DnsClass = { IN: 1 } as const;
export const DnsRcode = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

export interface DnsQuestion {
  readonly name: string;
  readonly type: number;
  readonly class: number;
}

export interface SoaData {
  readonly mname: string;
  readonly rname: string;
  readonly serial: number;
  readonly refresh: number;
  readonly retry: number;
  readonly expire: number;
  readonly minimum: number;
}

export type DnsRecordData =
  | { readonly kind: "a"; readonly address: number }
  | { readonly kind: "soa"; readonly soa: SoaData }
  | { readonly kind: "name"; readonly target: string }
  | { readonly kind: "raw"; readonly bytes: Uint8Array };

export interface DnsRecord {
  readonly name: string;
  readonly type: number;
  /** CLASS; for OPT the requestor's UDP payload size. */
  readonly class: number;
  /** TTL; for OPT the extended RCODE / version / flags word. */
  readonly ttl: number;
  readonly data: DnsRecordData;
}

export interface DnsFlags {
  readonly qr: boolean;
  readonly opcode: number;
  readonly aa: boolean;
  readonly tc: boolean;
  readonly rd: boolean;
  readonly ra: boolean;
  readonly ad: boolean;
  readonly cd: boolean;
  readonly rcode: number;
}

export interface DnsMessage {
  readonly id: number;
  readonly flags: DnsFlags;
  readonly questions: readonly DnsQuestion[];
  readonly answers: readonly DnsRecord[];
  readonly authority: readonly DnsRecord[];
  readonly additional: readonly DnsRecord[];
}

export interface DnsError {
  readonly field: string;
  readonly offset: number;
  readonly reason: string;
}

const dnsError = (field: string, offset: number, reason: string): Result<never, DnsError> => err({ field, offset, reason });

export const QUERY_FLAGS: DnsFlags = { qr: false, opcode: 0, aa: false, tc: false, rd: true, ra: false, ad: false, cd: false, rcode: 0 };

function flagWord(f: DnsFlags): number {
  return (f.qr ? 0x8000 : 0) | ((f.opcode & 15) << 11) | (f.aa ? 0x400 : 0) | (f.tc ? 0x200 : 0) | (f.rd ? 0x100 : 0) |
    (f.ra ? 0x80 : 0) | (f.ad ? 0x20 : 0) | (f.cd ? 0x10 : 0) | (f.rcode & 15);
}

function parseFlags(w: number): DnsFlags {
  return {
    qr: (w & 0x8000) !== 0, opcode: (w >>> 11) & 15, aa: (w & 0x400) !== 0, tc: (w & 0x200) !== 0, rd: (w & 0x100) !== 0,
    ra: (w & 0x80) !== 0, ad: (w & 0x20) !== 0, cd: (w & 0x10) !== 0, rcode: w & 15,
  };
}

/** Writes messages into a growing buffer, remembering where each name suffix went. */
class Writer {
  buf = new Uint8Array(512);
  at = 0;
  private readonly names = new Map<string, number>();

  ensure(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }

  u8(v: number): void {
    this.ensure(1);
    this.buf[this.at++] = v;
  }

  u16(v: number): void {
    this.ensure(2);
    write16(this.buf, this.at, v);
    this.at += 2;
  }

  u32(v: number): void {
    this.ensure(4);
    write32(this.buf, this.at, v >>> 0);
    this.at += 4;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.at);
    this.at += b.length;
  }

  name(name: string): void {
    const labels = name === "" || name === "." ? [] : name.replace(/\.$/, "").split(".");
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join(".").toLowerCase();
      const at = this.names.get(suffix);
      if (at !== undefined) {
        this.u16(0xc000 | at);
        return;
      }
      if (this.at < 0x3fff) this.names.set(suffix, this.at);
      const label = new TextEncoder().encode(labels[i]!);
      this.u8(label.length);
      this.bytes(label);
    }
    this.u8(0);
  }
}

function writeRecord(w: Writer, r: DnsRecord): void {
  w.name(r.name);
  w.u16(r.type);
  w.u16(r.class);
  w.u32(r.ttl);
  const lenAt = w.at;
  w.u16(0);
  const d = r.data;
  switch (d.kind) {
    case "a":
      w.u32(d.address);
      break;
    case "name":
      w.name(d.target);
      break;
    case "soa":
      w.name(d.soa.mname);
      w.name(d.soa.rname);
      w.u32(d.soa.serial);
      w.u32(d.soa.refresh);
      w.u32(d.soa.retry);
      w.u32(d.soa.expire);
      w.u32(d.soa.minimum);
      break;
    case "raw":
      w.bytes(d.bytes);
      break;
  }
  write16(w.buf, lenAt, w.at - lenAt - 2);
}

export function encodeDns(m: DnsMessage): Uint8Array {
  const w = new Writer();
  w.u16(m.id);
  w.u16(flagWord(m.flags));
  w.u16(m.questions.length);
  w.u16(m.answers.length);
  w.u16(m.authority.length);
  w.u16(m.additional.length);
  for (const q of m.questions) {
    w.name(q.name);
    w.u16(q.type);
    w.u16(q.class);
  }
  for (const r of m.answers) writeRecord(w, r);
  for (const r of m.authority) writeRecord(w, r);
  for (const r of m.additional) writeRecord(w, r);
  return w.buf.slice(0, w.at);
}

const decoder = new TextDecoder();

/** Reads a (possibly compressed) name at `at`; returns it and the offset after it in the message. */
function readName(b: Uint8Array, at: number): Result<{ name: string; next: number }, DnsError> {
  const labels: string[] = [];
  let p = at;
  let next = -1;
  let jumps = 0;
  let length = 0;
  for (;;) {
    if (p >= b.length) return dnsError("name", p, "runs past the end of the message");
    const len = b[p]!;
    if (len === 0) {
      if (next < 0) next = p + 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      if (p + 1 >= b.length) return dnsError("name", p, "truncated compression pointer");
      if (++jumps > 64) return dnsError("name", p, "compression pointer loop");
      if (next < 0) next = p + 2;
      p = ((len & 0x3f) << 8) | b[p + 1]!;
      continue;
    }
    if ((len & 0xc0) !== 0) return dnsError("name", p, `reserved label type 0x${len.toString(16)}`);
    if (p + 1 + len > b.length) return dnsError("name", p, "label runs past the end of the message");
    length += len + 1;
    if (length > 255) return dnsError("name", at, "longer than 255 bytes");
    labels.push(decoder.decode(b.subarray(p + 1, p + 1 + len)));
    p += 1 + len;
  }
  return ok({ name: labels.join("."), next });
}

function readRecord(b: Uint8Array, at: number): Result<{ record: DnsRecord; next: number }, DnsError> {
  const n = readName(b, at);
  if (!n.ok) return n;
  let p = n.value.next;
  if (p + 10 > b.length) return dnsError("record", p, "fixed fields run past the end");
  const type = read16(b, p);
  const cls = read16(b, p + 2);
  const ttl = read32(b, p + 4);
  const rdlen = read16(b, p + 8);
  p += 10;
  if (p + rdlen > b.length) return dnsError("rdata", p, `rdlength ${rdlen} runs past the end`);
  let data: DnsRecordData;
  if (type === DnsType.A && rdlen === 4) {
    data = { kind: "a", address: read32(b, p) };
  } else if (type === DnsType.CNAME || type === DnsType.NS || type === DnsType.PTR) {
    const t = readName(b, p);
    if (!t.ok) return t;
    data = { kind: "name", target: t.value.name };
  } else if (type === DnsType.SOA) {
    const mname = readName(b, p);
    if (!mname.ok) return mname;
    const rname = readName(b, mname.value.next);
    if (!rname.ok) return rname;
    const q = rname.value.next;
    if (q + 20 > p + rdlen) return dnsError("soa", q, "timers run past the rdata");
    data = { kind: "soa", soa: { mname: mname.value.name, rname: rname.value.name, serial: read32(b, q), refresh: read32(b, q + 4), retry: read32(b, q + 8), expire: read32(b, q + 12), minimum: read32(b, q + 16) } };
  } else {
    data = { kind: "raw", bytes: b.slice(p, p + rdlen) };
  }
  return ok({ record: { name: n.value.name, type, class: cls, ttl, data }, next: p + rdlen });
}

export function decodeDns(b: Uint8Array): Result<DnsMessage, DnsError> {
  if (b.length < 12) return dnsError("header", 0, `message of ${b.length} bytes is shorter than the 12-byte header`);
  const counts = [read16(b, 4), read16(b, 6), read16(b, 8), read16(b, 10)];
  let p = 12;
  const questions: DnsQuestion[] = [];
  for (let i = 0; i < counts[0]!; i++) {
    const n = readName(b, p);
    if (!n.ok) return n;
    p = n.value.next;
    if (p + 4 > b.length) return dnsError("question", p, "type/class run past the end");
    questions.push({ name: n.value.name, type: read16(b, p), class: read16(b, p + 2) });
    p += 4;
  }
  const sections: DnsRecord[][] = [[], [], []];
  for (let s = 0; s < 3; s++) {
    for (let i = 0; i < counts[s + 1]!; i++) {
      const r = readRecord(b, p);
      if (!r.ok) return r;
      sections[s]!.push(r.value.record);
      p = r.value.next;
    }
  }
  return ok({ id: read16(b, 0), flags: parseFlags(read16(b, 2)), questions, answers: sections[0]!, authority: sections[1]!, additional: sections[2]! });
}
