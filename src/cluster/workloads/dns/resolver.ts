// Resolver: getaddrinfo() of a pod with the resolv.conf the kubelet writes (nameserver = the
// cluster DNS ClusterIP, search <ns>.svc.<zone> svc.<zone> <zone>, options ndots:5; timeout 5 s and
// attempts 2 are the libc defaults). Names with fewer dots than ndots try the search list first.
// Two C libraries, two behaviours:
// - glibc: asks one nameserver at a time, waits `timeout` per try, `attempts` rounds; its connected
//   UDP socket hears ICMP port unreachable and moves on; SERVFAIL continues the search, a timeout ends it.
// - musl (Alpine, busybox images): asks all nameservers at once, resends every timeout/attempts,
//   gives up after `timeout` in total; its unconnected socket never hears ICMP errors; SERVFAIL or
//   a timeout ends the search.
// A and AAAA are asked in parallel (as both do for AF_UNSPEC) unless `families` is "A".

import type { NetNamespace } from "../../../net/stack/index.js";
import type { SeededRng } from "../../../util/rng.js";
import { UdpSocket } from "../../../net/udp-socket.js";
import { decodeDns, DnsClass, DnsRcode, DnsType, encodeDns, QUERY_FLAGS } from "./message.js";

export const LibC = { GLIBC: "glibc", MUSL: "musl" } as const;
export type LibC = (typeof LibC)[keyof typeof LibC];

export interface ResolvConf {
  readonly nameservers: readonly number[];
  readonly search: readonly string[];
  readonly ndots: number;
  readonly timeoutNs: number;
  readonly attempts: number;
}

/** The resolv.conf of a pod with dnsPolicy ClusterFirst in namespace `namespace`. */
export function podResolvConf(namespace: string, clusterDns: number, zone = "cluster.local"): ResolvConf {
  return { nameservers: [clusterDns], search: [`${namespace}.svc.${zone}`, `svc.${zone}`, zone], ndots: 5, timeoutNs: 5e9, attempts: 2 };
}

export type ResolveResult =
  | { readonly kind: "address"; readonly name: string; readonly addresses: readonly number[]; readonly queries: number }
  | { readonly kind: "nxdomain" | "nodata" | "servfail" | "timeout" | "refused"; readonly name: string; readonly queries: number };

export interface ResolverOptions {
  readonly libc?: LibC;
  readonly families?: "A" | "A+AAAA";
}

type Outcome = { kind: "address"; addresses: number[] } | { kind: "nxdomain" | "nodata" | "servfail" | "timeout" | "refused" };

export class Resolver {
  readonly libc: LibC;
  private readonly types: number[];
  /** DNS messages sent so far. */
  queriesSent = 0;
  private readonly rng: SeededRng;

  constructor(
    readonly ns: NetNamespace,
    readonly conf: ResolvConf,
    options: ResolverOptions = {},
  ) {
    this.rng = ns.rng.fork();
    this.libc = options.libc ?? LibC.MUSL;
    this.types = options.families === "A" ? [DnsType.A] : [DnsType.A, DnsType.AAAA];
  }

  /** The names tried for `name`, in order (res_search / musl name_from_dns_search). */
  candidates(name: string): string[] {
    if (name.endsWith(".")) return [name.slice(0, -1)];
    const dots = name.split(".").length - 1;
    const searched = this.conf.search.map((s) => `${name}.${s}`);
    return dots >= this.conf.ndots ? [name, ...searched] : [...searched, name];
  }

  resolve(name: string, done: (r: ResolveResult) => void): void {
    const names = this.candidates(name);
    const first = this.queriesSent;
    let servfail = false;
    const next = (i: number): void => {
      if (i >= names.length) {
        done({ kind: servfail ? "servfail" : "nxdomain", name, queries: this.queriesSent - first });
        return;
      }
      this.query(names[i]!, (o) => {
        if (o.kind === "address") done({ kind: "address", name: names[i]!, addresses: o.addresses, queries: this.queriesSent - first });
        else if (o.kind === "nxdomain" || o.kind === "nodata") next(i + 1);
        else if (o.kind === "servfail" && this.libc === LibC.GLIBC) {
          servfail = true;
          next(i + 1);
        } else done({ kind: o.kind, name, queries: this.queriesSent - first });
      });
    };
    next(0);
  }

  /** One name: A (+AAAA) to the nameservers with the library's retry rules. */
  private query(name: string, done: (o: Outcome) => void): void {
    const sim = this.ns.world.sim;
    const rng = this.rng;
    const conf = this.conf;
    const pending = new Map<number, number>();
    const results = new Map<number, Outcome>();
    let finished = false;
    let timer = 0;
    const messages = this.types.map((type) => {
      const id = rng.nextInt(0x10000);
      pending.set(id, type);
      return { id, type, bytes: encodeDns({ id, flags: QUERY_FLAGS, questions: [{ name, type, class: DnsClass.IN }], answers: [], authority: [], additional: [] }) };
    });
    const finish = (o: Outcome): void => {
      if (finished) return;
      finished = true;
      if (timer !== 0) sim.cancel(timer);
      sock.close();
      done(o);
    };
    const settle = (): void => {
      if (results.size < messages.length) return;
      const a = results.get(DnsType.A)!;
      if (a.kind === "address") finish(a);
      else {
        const kinds = [...results.values()].map((r) => r.kind);
        finish({ kind: kinds.includes("nxdomain") ? "nxdomain" : kinds.includes("servfail") ? "servfail" : kinds.includes("refused") ? "refused" : "nodata" });
      }
    };
    let server = 0;
    let refusals = 0;
    const bound = UdpSocket.bind(this.ns, 0, {
      onMessage: (_s, msg) => {
        const m = decodeDns(msg.data);
        if (!m.ok || !m.value.flags.qr) return;
        const type = pending.get(m.value.id);
        if (type === undefined || m.value.questions[0]?.name.toLowerCase() !== name.toLowerCase()) return;
        pending.delete(m.value.id);
        const rcode = m.value.flags.rcode;
        const addrs = m.value.answers.filter((r) => r.type === DnsType.A && r.data.kind === "a").map((r) => (r.data.kind === "a" ? r.data.address : 0));
        results.set(type, rcode === DnsRcode.NXDOMAIN ? { kind: "nxdomain" } : rcode === DnsRcode.SERVFAIL ? { kind: "servfail" } : rcode === DnsRcode.REFUSED ? { kind: "refused" } : addrs.length > 0 ? { kind: "address", addresses: addrs } : { kind: "nodata" });
        settle();
      },
      onError: (_s, e) => {
        // Only glibc's connected socket hears "port unreachable" (ECONNREFUSED): try the next server now.
        if (this.libc !== LibC.GLIBC || e.type !== 3) return;
        refusals++;
        if (timer !== 0) sim.cancel(timer);
        timer = 0;
        advance();
      },
    });
    if (!bound.ok) {
      sim.schedule(0, () => done({ kind: "refused" }));
      return;
    }
    const sock = bound.value;
    const sendTo = (ns: number): void => {
      for (const m of messages) {
        if (!pending.has(m.id)) continue;
        sock.send(ns, 53, m.bytes);
        this.queriesSent++;
      }
    };
    const servers = conf.nameservers;
    if (this.libc === LibC.MUSL) {
      // Every server at once, resent each timeout/attempts, for `timeout` in total.
      const interval = Math.floor(conf.timeoutNs / conf.attempts);
      let elapsed = 0;
      const round = (): void => {
        if (finished) return;
        if (elapsed >= conf.timeoutNs) {
          finish({ kind: "timeout" });
          return;
        }
        for (const s of servers) sendTo(s);
        const wait = Math.min(interval, conf.timeoutNs - elapsed);
        elapsed += wait;
        timer = sim.schedule(wait, round);
      };
      round();
      return;
    }
    // glibc: one server per try, `attempts` rounds over the list.
    const tries = conf.attempts * servers.length;
    const advance = (): void => {
      if (finished) return;
      if (server >= tries) {
        finish({ kind: refusals >= tries ? "refused" : "timeout" });
        return;
      }
      const ns = servers[server % servers.length]!;
      server++;
      sendTo(ns);
      timer = sim.schedule(conf.timeoutNs, () => {
        timer = 0;
        advance();
      });
    };
    advance();
  }
}
