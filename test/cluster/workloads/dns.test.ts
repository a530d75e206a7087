// Cluster DNS: the CoreDNS-like server's answers (A for services and pods, NXDOMAIN with the
// zone's SOA, NODATA for AAAA, flags qr aa rd), its bytes as tshark decodes them, and the pod
// resolver: resolv.conf search order with ndots:5, and how musl and glibc wait out a server that
// does not answer (5 s vs 2 x 5 s) or is refused (ICMP port unreachable only reaches glibc).

import { test } from "node:test";
import assert from "node:assert/strict";
import { iptablesRestore } from "../../../src/net/netfilter/index.js";
import {
  DnsRcode, DnsServer, DnsType, LibC, Resolver, UdpEcho, decodeDns, encodeDns, podResolvConf,
  type ClusterDnsData, type ResolveResult,
} from "../../../src/cluster/workloads/index.js";
import { UdpSocket } from "../../../src/net/udp-socket.js";
import { unwrap } from "../../../src/util/result.js";
import { Capture, assertConserved, ip, vethPair } from "../../net/tcp/topology.js";
import { tsharkFields, tsharkMissing } from "./tshark.js";

const CLUSTER: ClusterDnsData = {
  namespaces: ["default", "prod", "kube-system"],
  services: [
    { name: "web", namespace: "default", clusterIP: ip("10.96.12.34") },
    { name: "db", namespace: "prod", clusterIP: ip("10.96.0.77") },
    { name: "kube-dns", namespace: "kube-system", clusterIP: ip("10.96.0.10") },
    { name: "stateful", namespace: "prod", clusterIP: 0, endpoints: [ip("10.244.1.7"), ip("10.244.2.9")] },
  ],
};

function setup(libc: string = LibC.MUSL) {
  const t = vethPair();
  const server = new DnsServer(t.b, CLUSTER);
  const resolver = new Resolver(t.a, podResolvConf("default", ip("10.9.0.2")), { libc: libc === LibC.GLIBC ? LibC.GLIBC : LibC.MUSL });
  return { ...t, server, resolver };
}

function resolve(s: ReturnType<typeof setup>, name: string): { r: ResolveResult; at: number } {
  let out: { r: ResolveResult; at: number } | null = null;
  s.resolver.resolve(name, (r) => (out = { r, at: s.world.sim.now }));
  s.world.sim.run();
  assert.ok(out !== null);
  return out;
}

test("search list with ndots:5: <svc> resolves in the pod's namespace, <svc>.<ns> on the second try", () => {
  const s = setup();
  unwrap(s.server.start());
  assert.deepEqual(s.resolver.candidates("web"), ["web.default.svc.cluster.local", "web.svc.cluster.local", "web.cluster.local", "web"]);
  const web = resolve(s, "web").r;
  assert.equal(web.kind, "address");
  if (web.kind === "address") {
    assert.equal(web.name, "web.default.svc.cluster.local");
    assert.deepEqual(web.addresses, [ip("10.96.12.34")]);
    assert.equal(web.queries, 2, "A and AAAA in parallel");
  }
  const db = resolve(s, "db.prod").r;
  assert.equal(db.kind, "address");
  if (db.kind === "address") {
    assert.equal(db.name, "db.prod.svc.cluster.local");
    assert.equal(db.queries, 4, "db.prod.default.svc.cluster.local was NXDOMAIN first");
  }
  const headless = resolve(s, "stateful.prod.svc.cluster.local").r;
  assert.deepEqual(headless.kind === "address" ? headless.addresses : [], [ip("10.244.1.7"), ip("10.244.2.9")]);
  const pod = resolve(s, "10-244-1-5.default.pod.cluster.local.").r;
  assert.deepEqual(pod.kind === "address" ? pod.addresses : [], [ip("10.244.1.5")]);
  const none = resolve(s, "nothing").r;
  assert.equal(none.kind, "nxdomain");
  assert.equal(none.queries, 8, "four names, A and AAAA each");
  assertConserved(s.world);
});

test("answers: NXDOMAIN with the zone SOA, NODATA for AAAA, flags qr aa rd, EDNS0 echoed", () => {
  const server = new DnsServer(vethPair().b, CLUSTER);
  const ask = (name: string, type: number, edns = false) =>
    server.answer(unwrap(decodeDns(encodeDns({
      id: 0x1234,
      flags: { qr: false, opcode: 0, aa: false, tc: false, rd: true, ra: false, ad: false, cd: false, rcode: 0 },
      questions: [{ name, type, class: 1 }],
      answers: [],
      authority: [],
      additional: edns ? [{ name: "", type: DnsType.OPT, class: 1232, ttl: 0, data: { kind: "raw", bytes: new Uint8Array(0) } }] : [],
    }))));
  const a = ask("web.default.svc.cluster.local", DnsType.A, true);
  assert.deepEqual([a.flags.qr, a.flags.aa, a.flags.rd, a.flags.ra, a.flags.rcode], [true, true, true, false, DnsRcode.NOERROR]);
  assert.equal(a.answers[0]!.ttl, 30);
  assert.equal(a.additional[0]!.type, DnsType.OPT);
  assert.equal(a.additional[0]!.class, 1232);
  const aaaa = ask("web.default.svc.cluster.local", DnsType.AAAA);
  assert.equal(aaaa.flags.rcode, DnsRcode.NOERROR);
  assert.equal(aaaa.answers.length, 0);
  assert.equal(aaaa.authority[0]!.type, DnsType.SOA);
  const nx = ask("web.prod.svc.cluster.local", DnsType.A);
  assert.equal(nx.flags.rcode, DnsRcode.NXDOMAIN);
  const soa = nx.authority[0]!;
  assert.equal(soa.name, "cluster.local");
  assert.deepEqual(soa.data.kind === "soa" ? [soa.data.soa.mname, soa.data.soa.rname, soa.data.soa.refresh, soa.data.soa.retry, soa.data.soa.expire, soa.data.soa.minimum] : [], ["ns.dns.cluster.local", "hostmaster.cluster.local", 7200, 1800, 86400, 30]);
});

test("tshark decodes the query and answer bytes the same way", async (t) => {
  const missing = tsharkMissing();
  if (missing !== null) {
    t.skip(missing);
    return;
  }
  const s = setup();
  const cap = Capture.on(s.va, true);
  unwrap(s.server.start());
  resolve(s, "db.prod");
  const udp = cap.frames.filter((f) => f.bytes[23] === 17).map((f) => f.bytes);
  const rows = await tsharkFields(udp, [
    "dns.flags.response", "dns.qry.name", "dns.qry.type", "dns.flags.rcode", "dns.flags.authoritative", "dns.flags.recdesired",
    "dns.flags.recavail", "dns.a", "dns.resp.ttl", "dns.soa.mname", "dns.soa.rname", "dns.soa.minimum_ttl", "udp.checksum.status", "dns.id",
  ], ["-o", "udp.check_checksum:TRUE"]);
  const decoded = udp.map((f) => unwrap(decodeDns(f.subarray(42))));
  assert.equal(rows.length, decoded.length);
  rows.forEach((row, i) => {
    const m = decoded[i]!;
    assert.equal(row[0], m.flags.qr ? "1" : "0", `frame ${i} QR`);
    assert.equal(row[1], m.questions[0]!.name);
    assert.equal(row[2], String(m.questions[0]!.type));
    assert.equal(Number(row[13]), m.id);
    if (!m.flags.qr) return;
    assert.equal(row[3], String(m.flags.rcode));
    assert.equal(row[4], "1");
    assert.equal(row[5], "1");
    assert.equal(row[6], "0");
    if (m.flags.rcode === DnsRcode.NXDOMAIN) assert.deepEqual([row[9], row[10], row[11]], ["ns.dns.cluster.local", "hostmaster.cluster.local", "30"]);
  });
  const answer = rows.find((r) => r[7] !== "")!;
  assert.equal(answer[1], "db.prod.svc.cluster.local");
  assert.equal(answer[7], "10.96.0.77");
  assert.equal(answer[8], "30");
  assert.ok(rows.every((r) => r[12] === "1"), "tshark verified every UDP checksum (status 1 = good)");
});

test("no answer (egress dropped): musl gives up after 5 s, glibc after 2 attempts x 5 s", () => {
  for (const [libc, seconds] of [[LibC.MUSL, 5], [LibC.GLIBC, 10]] as const) {
    const s = setup(libc);
    unwrap(s.server.start());
    unwrap(iptablesRestore(s.b.netfilter, "*filter\n-A INPUT -p udp --dport 53 -j DROP\nCOMMIT\n", { noflush: true }));
    const { r, at } = resolve(s, "web");
    assert.equal(r.kind, "timeout", libc);
    assert.equal(at / 1e9, seconds, libc);
  }
});

test("nothing listens on 53: glibc hears ICMP port unreachable at once, musl waits for its timeout", () => {
  const glibc = resolve(setup(LibC.GLIBC), "web");
  assert.equal(glibc.r.kind, "refused");
  assert.equal(glibc.at, 0);
  const musl = resolve(setup(LibC.MUSL), "web");
  assert.equal(musl.r.kind, "timeout");
  assert.equal(musl.at / 1e9, 5);
});

test("UDP echo returns the datagram", () => {
  const t = vethPair();
  unwrap(new UdpEcho(t.b, 7).start());
  let got = "";
  const sock = unwrap(UdpSocket.bind(t.a, 0, { onMessage: (_s, m) => (got = new TextDecoder().decode(m.data)) }));
  unwrap(sock.send(ip("10.9.0.2"), 7, new TextEncoder().encode("ping over udp")));
  t.world.sim.run();
  assert.equal(got, "ping over udp");
  assertConserved(t.world);
});
