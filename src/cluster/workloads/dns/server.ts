// DnsServer: a CoreDNS-like responder for the cluster zone on UDP 53, as kubeadm's Corefile
// configures the kubernetes plugin (pods insecure, ttl 30): A records for
// <svc>.<ns>.svc.<zone> (the ClusterIP, or the endpoints of a headless service) and
// <a-b-c-d>.<ns>.pod.<zone>; NODATA (NOERROR, no answer) for other types of existing names and the
// zone apex; NXDOMAIN otherwise, with the zone's SOA in the authority section. Responses are
// authoritative without recursion available (dig: "flags: qr aa rd"); an EDNS0 OPT in the query is
// echoed. Names outside the zone are answered from an optional upstream table, else NXDOMAIN.
// Datagrams that are not a serviceable query get miekg/dns's bare NOTIMP/FORMERR header (responses
// and runts are ignored).

import type { NetNamespace } from "../../../net/stack/index.js";
import { UdpSocket, type UdpDatagram } from "../../../net/udp-socket.js";
import { err, ok, type Result } from "../../../util/result.js";
import { parseIPv4 } from "../../../util/ip.js";
import { decodeDns, DnsClass, DnsRcode, DnsType, encodeDns, type DnsMessage, type DnsRecord } from "./message.js";

export interface ClusterService {
  readonly name: string;
  readonly namespace: string;
  /** ClusterIP; 0 for a headless service (its endpoints answer instead). */
  readonly clusterIP: number;
  readonly endpoints?: readonly number[];
}

/** What the kubernetes plugin knows (the lead's cluster layer keeps it current). */
export interface ClusterDnsData {
  readonly services: readonly ClusterService[];
  readonly namespaces: readonly string[];
}

export interface DnsServerOptions {
  readonly port?: number;
  readonly zone?: string;
  /** Record TTL (kubeadm's Corefile: ttl 30). */
  readonly ttl?: number;
  /** SOA serial (CoreDNS uses the time of the last change). */
  readonly serial?: number;
  /** Names outside the zone and their addresses (stands in for the forward plugin's upstream). */
  readonly upstream?: ReadonlyMap<string, readonly number[]>;
}

export interface DnsServerStats {
  queries: number;
  byRcode: Map<number, number>;
  malformed: number;
}

export class DnsServer {
  readonly stats: DnsServerStats = { queries: 0, byRcode: new Map(), malformed: 0 };
  private socket: UdpSocket | null = null;
  private readonly zone: string;
  private readonly ttl: number;

  constructor(
    readonly ns: NetNamespace,
    public data: ClusterDnsData,
    private readonly options: DnsServerOptions = {},
  ) {
    this.zone = (options.zone ?? "cluster.local").toLowerCase();
    this.ttl = options.ttl ?? 30;
  }

  start(): Result<UdpSocket, string> {
    const r = UdpSocket.bind(this.ns, this.options.port ?? 53, { onMessage: (s, m) => this.receive(s, m) });
    if (!r.ok) return err(r.error.detail);
    this.socket = r.value;
    return ok(r.value);
  }

  stop(): void {
    this.socket?.close();
    this.socket = null;
  }

  /** The answer to a query message (also usable without the network). */
  answer(query: DnsMessage): DnsMessage {
    const q = query.questions[0];
    const opt = query.additional.find((r) => r.type === DnsType.OPT);
    const additional: DnsRecord[] = opt !== undefined ? [{ name: "", type: DnsType.OPT, class: Math.max(opt.class, 512), ttl: opt.ttl & 0x8000, data: { kind: "raw", bytes: new Uint8Array(0) } }] : [];
    const reply = (rcode: number, answers: DnsRecord[], authority: DnsRecord[], aa: boolean): DnsMessage => ({
      id: query.id,
      flags: { qr: true, opcode: query.flags.opcode, aa, tc: false, rd: query.flags.rd, ra: !aa, ad: false, cd: query.flags.cd, rcode },
      questions: query.questions,
      answers,
      authority,
      additional,
    });
    if (q === undefined || query.flags.opcode !== 0 || query.questions.length !== 1) return reply(DnsRcode.FORMERR, [], [], false);
    const name = q.name.toLowerCase().replace(/\.$/, "");
    const inZone = name === this.zone || name.endsWith(`.${this.zone}`);
    if (!inZone) {
      const addrs = this.options.upstream?.get(name);
      if (addrs === undefined) return reply(DnsRcode.NXDOMAIN, [], [], false);
      const answers = q.type === DnsType.A ? addrs.map((a) => this.a(q.name, a)) : [];
      return reply(DnsRcode.NOERROR, answers, [], false);
    }
    const found = this.lookup(name.slice(0, Math.max(0, name.length - this.zone.length - 1)));
    if (found === null) return reply(DnsRcode.NXDOMAIN, [], [this.soa()], true);
    if (q.type !== DnsType.A || found.length === 0) return reply(DnsRcode.NOERROR, [], [this.soa()], true);
    return reply(DnsRcode.NOERROR, found.map((a) => this.a(q.name, a)), [], true);
  }

  /** Addresses of a name relative to the zone; [] for an existing name without addresses, null if none. */
  private lookup(rel: string): number[] | null {
    if (rel === "") return [];
    const labels = rel.split(".");
    if (labels.length === 3 && labels[2] === "svc") {
      const svc = this.data.services.find((s) => s.name === labels[0] && s.namespace === labels[1]);
      if (svc === undefined) return null;
      return svc.clusterIP !== 0 ? [svc.clusterIP] : [...(svc.endpoints ?? [])];
    }
    if (labels.length === 3 && labels[2] === "pod") {
      const addr = parseIPv4(labels[0]!.replace(/-/g, "."));
      return addr !== null && labels[0]!.split("-").length === 4 ? [addr] : null;
    }
    if (labels.length === 2 && labels[1] === "svc" && this.data.namespaces.includes(labels[0]!)) return [];
    return null;
  }

  private a(name: string, address: number): DnsRecord {
    return { name, type: DnsType.A, class: DnsClass.IN, ttl: this.ttl, data: { kind: "a", address } };
  }

  private soa(): DnsRecord {
    return {
      name: this.zone,
      type: DnsType.SOA,
      class: DnsClass.IN,
      ttl: this.ttl,
      data: { kind: "soa", soa: { mname: `ns.dns.${this.zone}`, rname: `hostmaster.${this.zone}`, serial: this.options.serial ?? 1735689600, refresh: 7200, retry: 1800, expire: 86400, minimum: this.ttl } },
    };
  }

  private receive(sock: UdpSocket, msg: UdpDatagram): void {
    const reply = this.respond(msg.data);
    if (reply !== null) sock.send(msg.src, msg.srcPort, reply, msg.dst);
  }

  /**
   * The reply bytes to one query message (UDP datagram, or a TCP message without its length prefix),
   * null when it is ignored. miekg/dns (CoreDNS's server) answers what it cannot serve with a bare
   * header: NOTIMP for other opcodes, FORMERR for bad counts or a body that does not parse.
   */
  respond(data: Uint8Array): Uint8Array | null {
    this.stats.queries++;
    const reject = rejectCode(data);
    if (reject === null) {
      this.stats.malformed++;
      return null;
    }
    const query = reject === DnsRcode.NOERROR ? decodeDns(data) : null;
    if (query !== null && query.ok) {
      const reply = this.answer(query.value);
      this.count(reply.flags.rcode);
      return encodeDns(reply);
    }
    this.stats.malformed++;
    const rcode = reject === DnsRcode.NOERROR ? DnsRcode.FORMERR : reject;
    const opcode = rcode === DnsRcode.NOTIMP ? (data[2]! >> 3) & 0xf : 0;
    this.count(rcode);
    return encodeDns({
      id: (data[0]! << 8) | data[1]!,
      flags: { qr: true, opcode, aa: false, tc: false, rd: false, ra: false, ad: false, cd: false, rcode },
      questions: [], answers: [], authority: [], additional: [],
    });
  }

  private count(rcode: number): void {
    this.stats.byRcode.set(rcode, (this.stats.byRcode.get(rcode) ?? 0) + 1);
  }
}

/**
 * miekg/dns DefaultMsgAcceptFunc on the 12-byte header: null = ignore (too short, or a response);
 * NOTIMP for opcodes other than QUERY and NOTIFY; FORMERR for QDCOUNT != 1, ANCOUNT > 1, NSCOUNT > 1
 * or ARCOUNT > 2; NOERROR = accept.
 */
function rejectCode(b: Uint8Array): number | null {
  if (b.length < 12 || (b[2]! & 0x80) !== 0) return null;
  const opcode = (b[2]! >> 3) & 0xf;
  if (opcode !== 0 && opcode !== 4) return DnsRcode.NOTIMP;
  const count = (i: number): number => (b[i]! << 8) | b[i + 1]!;
  if (count(4) !== 1 || count(6) > 1 || count(8) > 1 || count(10) > 2) return DnsRcode.FORMERR;
  return DnsRcode.NOERROR;
}
