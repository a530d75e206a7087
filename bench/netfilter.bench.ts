// Netfilter hot paths, packets through PREROUTING + FORWARD + POSTROUTING of one router namespace:
// no rules, conntrack on an established flow, the same flow DNATed and MASQUERADEd, a 200-rule
// filter chain, and a new UDP connection per packet. Ratios are against re-parsing the packet
// (copy + parseIp), measured in the same run. Then kube-proxy-shaped rulesets of 10 and 1,000
// ClusterIP services: a new connection to the last service through PREROUTING (with the chain
// index, and without it: the linear walk), and iptables-restore of the whole ruleset, as ratios of
// 1,000 to 10 services (a restore linear in its input gives about 100x).

import { Bench } from "tinybench";
import { Simulator } from "../src/engine/simulator.js";
import { DeviceKind, NetDevice } from "../src/net/device.js";
import type { NetfilterHost } from "../src/net/netfilter/host.js";
import { NfHook } from "../src/net/netfilter/hooks.js";
import { Netfilter, type NetfilterOptions } from "../src/net/netfilter/netfilter.js";
import { iptablesRestore } from "../src/net/netfilter/table/restore.js";
import { NetWorld } from "../src/net/world.js";
import { NatApplied, SkBuff } from "../src/skb/skbuff.js";
import { ParsedHeaders, parseIp } from "../src/wire/headers.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../src/wire/checksum.js";

const BATCH = 1000;

class BenchDevice extends NetDevice {
  readonly kind = DeviceKind.ETHERNET;
  protected xmit(): void {}
}

class BenchHost implements NetfilterHost {
  readonly world = new NetWorld(new Simulator({ seed: 1 }));
  readonly name = "bench";
  readonly nodeName = "bench";
  readonly netfilter: Netfilter;
  readonly lan = new BenchDevice(this.world, "lan", 2, 1500);
  readonly wan = new BenchDevice(this.world, "wan", 3, 1500);
  constructor(options: NetfilterOptions = {}) {
    this.netfilter = new Netfilter(this, options);
  }
  primaryAddress(dev: NetDevice): number {
    return dev === this.lan ? 0x0a630101 : 0x0a630201;
  }
  isLocalAddress(addr: number): boolean {
    return addr === 0x0a630101 || addr === 0x0a630201;
  }
  outputIp(): void {}
}

function packet(src: number, dst: number, proto: number, sport: number, dport: number, flags: number): Uint8Array {
  const l4len = proto === 6 ? 20 + 64 : 8 + 64;
  const b = new Uint8Array(20 + l4len);
  b[0] = 0x45;
  b[2] = b.length >>> 8;
  b[3] = b.length & 0xff;
  b[6] = 0x40;
  b[8] = 64;
  b[9] = proto;
  for (let k = 0; k < 4; k++) {
    b[12 + k] = (src >>> (24 - 8 * k)) & 0xff;
    b[16 + k] = (dst >>> (24 - 8 * k)) & 0xff;
  }
  b[20] = sport >>> 8;
  b[21] = sport & 0xff;
  b[22] = dport >>> 8;
  b[23] = dport & 0xff;
  if (proto === 6) {
    b[27] = 100; // seq 100
    b[31] = 1; // ack 1
    b[32] = 0x50;
    b[33] = flags;
    b[34] = 0xff;
    b[35] = 0xff;
  } else {
    b[25] = l4len;
  }
  setL4ChecksumV4(b, 20, l4len, proto, src, dst);
  setIpv4HeaderChecksum(b, 0, 20);
  return b;
}

/** Runs a batch of copies of `template` through the forward hooks; returns how many were accepted. */
function forwardBatch(host: BenchHost, skb: SkBuff, template: Uint8Array, vary: boolean, counter: { n: number }): number {
  const nf = host.netfilter;
  let ok = 0;
  for (let k = 0; k < BATCH; k++) {
    skb.data.set(template, skb.head);
    if (vary) {
      const n = counter.n++;
      skb.data[skb.head + 14] = (n >>> 16) & 0xff;
      skb.data[skb.head + 20] = (n >>> 8) & 0xff;
      skb.data[skb.head + 21] = n & 0xff;
      skb.data[skb.head + 26] = 0;
      skb.data[skb.head + 27] = 0;
      skb.data[skb.head + 10] = 0;
      skb.data[skb.head + 11] = 0;
      setIpv4HeaderChecksum(skb.data, skb.head, 20);
      if ((n & 0xffff) === 0) nf.conntrack.flush();
    }
    if (nf.run(NfHook.PREROUTING, skb, host.lan, null) !== 1) continue;
    if (nf.run(NfHook.FORWARD, skb, host.lan, host.wan) !== 1) continue;
    if (nf.run(NfHook.POSTROUTING, skb, host.lan, host.wan) === 1) ok++;
  }
  return ok;
}

const CLIENT = 0x0a630102;
const SERVER = 0x0a630202;
const VIP = 0x0a630303;

function through(host: BenchHost, bytes: Uint8Array, inDev: NetDevice, outDev: NetDevice): SkBuff {
  const skb = SkBuff.fromBytes(0, bytes);
  host.netfilter.run(NfHook.PREROUTING, skb, inDev, null);
  host.netfilter.run(NfHook.FORWARD, skb, inDev, outDev);
  host.netfilter.run(NfHook.POSTROUTING, skb, inDev, outDev);
  return skb;
}

/**
 * A router set up by `setup`; TCP templates get their connection established first (SYN, SYN/ACK
 * from `replyFrom`:`replyPort` to `replyTo`), so the measured packets are ESTABLISHED.
 */
function scenario(
  setup: (host: BenchHost) => void,
  template: Uint8Array,
  reply: { from: number; port: number; to: number } | null,
  vary = false,
  options: NetfilterOptions = {},
): () => void {
  const host = new BenchHost(options);
  setup(host);
  const skb = SkBuff.fromBytes(0, template);
  const counter = { n: 0 };
  if (reply !== null) {
    const dst = ((template[16]! << 24) | (template[17]! << 16) | (template[18]! << 8) | template[19]!) >>> 0;
    const syn = packet(CLIENT, dst, 6, 40000, 80, 0x02);
    syn[27] = 99; // seq 99, so the template's seq 100 follows it
    setL4ChecksumV4(syn, 20, syn.length - 20, 6, CLIENT, dst);
    through(host, syn, host.lan, host.wan);
    const synAck = packet(reply.from, reply.to, 6, reply.port, 40000, 0x12);
    synAck[27] = 0; // seq 0, ack 100
    synAck[31] = 100;
    setL4ChecksumV4(synAck, 20, synAck.length - 20, 6, reply.from, reply.to);
    through(host, synAck, host.wan, host.lan);
    const probe = through(host, template, host.lan, host.wan);
    if (host.netfilter.tracking && (probe.ctState & 2) === 0) throw new Error(`bench flow not ESTABLISHED (ctState ${probe.ctState})`);
  }
  return () => {
    if (forwardBatch(host, skb, template, vary, counter) === 0) throw new Error("bench scenario accepted nothing");
  };
}

/** kube-proxy's shape for n ClusterIP services of 3 endpoints (KUBE-SERVICES, KUBE-SVC-*, KUBE-SEP-*), as iptables-restore input. */
function serviceRuleset(n: number): string {
  const chains = [":KUBE-SERVICES - [0:0]", ":KUBE-MARK-MASQ - [0:0]"];
  const rules = ["-A PREROUTING -j KUBE-SERVICES", "-A KUBE-MARK-MASQ -j MARK --or-mark 0x4000"];
  const svcRules: string[] = [];
  for (let i = 0; i < n; i++) {
    const vip = `10.96.${i >> 8}.${i & 255}`;
    const svc = `KUBE-SVC-${i}`;
    chains.push(`:${svc} - [0:0]`);
    rules.push(`-A KUBE-SERVICES -d ${vip}/32 -p tcp -m comment --comment "bench/svc${i} cluster IP" -m tcp --dport 80 -j ${svc}`);
    svcRules.push(`-A ${svc} ! -s 10.244.0.0/16 -d ${vip}/32 -p tcp -m tcp --dport 80 -j KUBE-MARK-MASQ`);
    for (let k = 0; k < 3; k++) {
      const ep = `10.244.${(i * 3 + k) >> 8}.${(i * 3 + k) & 255}`;
      const sep = `KUBE-SEP-${i}-${k}`;
      chains.push(`:${sep} - [0:0]`);
      const stat = k === 0 ? "-m statistic --mode random --probability 0.33333333349 " : k === 1 ? "-m statistic --mode random --probability 0.50000000000 " : "";
      svcRules.push(`-A ${svc} ${stat}-j ${sep}`, `-A ${sep} -s ${ep}/32 -j KUBE-MARK-MASQ`, `-A ${sep} -p tcp -m tcp -j DNAT --to-destination ${ep}:8080`);
    }
  }
  rules.push("-A KUBE-SERVICES -m addrtype --dst-type LOCAL -j RETURN");
  return ["*nat", ...chains, ...rules, ...svcRules, "COMMIT", ""].join("\n");
}

/** New TCP connections (a fresh source port each) to the last of n services, through PREROUTING. */
function serviceSyns(n: number, options: NetfilterOptions = {}): () => void {
  const host = new BenchHost(options);
  const loaded = iptablesRestore(host.netfilter, serviceRuleset(n));
  if (!loaded.ok) throw new Error(`bench ruleset: line ${loaded.error.line}: ${loaded.error.reason}`);
  const last = n - 1;
  const vip = (0x0a600000 + (last >> 8) * 256 + (last & 255)) >>> 0;
  const template = packet(CLIENT, vip, 6, 1024, 80, 0x02);
  const skb = SkBuff.fromBytes(0, template);
  const nf = host.netfilter;
  let sport = 1024;
  return () => {
    for (let k = 0; k < BATCH; k++) {
      skb.data.set(template, skb.head);
      skb.data[skb.head + 20] = sport >>> 8;
      skb.data[skb.head + 21] = sport & 0xff;
      sport = sport >= 65000 ? 1024 : sport + 1;
      setL4ChecksumV4(skb.data, skb.head + 20, template.length - 20, 6, CLIENT, vip);
      skb.ctEntry = -1;
      skb.ctState = 0;
      skb.mark = 0;
      skb.natApplied = 0;
      nf.run(NfHook.PREROUTING, skb, host.lan, null);
    }
    if ((skb.natApplied & NatApplied.DNAT) === 0) throw new Error("bench SYN was not DNATed");
    nf.conntrack.flush();
  };
}

/** iptables-restore (no --noflush: the nat table is replaced) of n services' ruleset. */
function serviceRestore(n: number): () => void {
  const host = new BenchHost();
  const text = serviceRuleset(n);
  return () => {
    const r = iptablesRestore(host.netfilter, text);
    if (!r.ok) throw new Error(`bench restore: line ${r.error.line}: ${r.error.reason}`);
  };
}

async function main(): Promise<void> {
  const tcp = packet(CLIENT, SERVER, 6, 40000, 80, 0x10);
  tcp[31] = 1; // ack 1 = the SYN/ACK's seq 0 + 1
  setL4ChecksumV4(tcp, 20, tcp.length - 20, 6, CLIENT, SERVER);
  const tcpToVip = packet(CLIENT, VIP, 6, 40000, 80, 0x10);
  setL4ChecksumV4(tcpToVip, 20, tcpToVip.length - 20, 6, CLIENT, VIP);
  const direct = { from: SERVER, port: 80, to: CLIENT };
  const udp = packet(CLIENT, SERVER, 17, 1, 53, 0);
  const h = new ParsedHeaders();
  const parseSkb = SkBuff.fromBytes(0, tcp);

  const bench = new Bench({ time: 500, warmupTime: 100 });
  bench.add("baseline: copy + parseIp", () => {
    for (let k = 0; k < BATCH; k++) {
      parseSkb.data.set(tcp, parseSkb.head);
      parseIp(parseSkb.data, parseSkb.head, parseSkb.tail, h);
    }
  });
  bench.add("no rules (conntrack off)", scenario(() => {}, tcp, null));
  bench.add("conntrack, established TCP", scenario((host) => {
    host.netfilter.table("filter").append("FORWARD", { ctstate: { states: ["ESTABLISHED", "NEW"] }, target: { kind: "ACCEPT" } });
  }, tcp, direct));
  bench.add("DNAT + MASQUERADE, established TCP", scenario((host) => {
    const nat = host.netfilter.table("nat");
    nat.append("PREROUTING", { dst: "10.99.3.3", proto: "tcp", dport: 80, target: { kind: "DNAT", to: "10.99.2.2:8080" } });
    nat.append("POSTROUTING", { outIface: "wan", target: { kind: "MASQUERADE" } });
  }, tcpToVip, { from: SERVER, port: 8080, to: 0x0a630201 }));
  bench.add("200-rule filter chain, match at the end", scenario((host) => {
    const filter = host.netfilter.table("filter");
    for (let k = 0; k < 200; k++) filter.append("FORWARD", { proto: "tcp", dst: `10.200.${k}.0/24`, dport: 1000 + k, target: { kind: "DROP" } });
    filter.append("FORWARD", { target: { kind: "ACCEPT" } });
  }, tcp, null, false, { conntrackMode: "off" }));
  bench.add("new UDP connection per packet", scenario((host) => {
    host.netfilter.table("nat").append("POSTROUTING", { outIface: "wan", target: { kind: "MASQUERADE" } });
  }, udp, null, true));
  const serviceTasks = [
    "SYN to the last of 10 services",
    "SYN to the last of 1,000 services",
    "SYN to the last of 1,000 services, linear walk (no index)",
    "restore: 10 services",
    "restore: 1,000 services",
  ] as const;
  bench.add(serviceTasks[0], serviceSyns(10));
  bench.add(serviceTasks[1], serviceSyns(1000));
  bench.add(serviceTasks[2], serviceSyns(1000, { chainIndexMinRules: Infinity }));
  bench.add(serviceTasks[3], serviceRestore(10));
  bench.add(serviceTasks[4], serviceRestore(1000));
  await bench.run();

  const base = bench.tasks[0]!.result;
  const baseRate = base !== undefined && "throughput" in base ? base.throughput.mean * BATCH : 0;
  const rows = bench.tasks.map((t) => {
    const r = t.result;
    const rate = r !== undefined && "throughput" in r ? r.throughput.mean * BATCH : 0;
    return {
      task: t.name,
      "packets/s": Math.round(rate).toLocaleString("en-US"),
      "ns/packet": rate > 0 ? (1e9 / rate).toFixed(0) : "-",
      "vs baseline": baseRate > 0 ? `${(baseRate / rate).toFixed(2)}x cost` : "-",
    };
  });
  console.table(rows.filter((r) => !(serviceTasks as readonly string[]).includes(r.task)));

  const mean = (name: string): number => {
    const r = bench.tasks.find((t) => t.name === name)?.result;
    return r !== undefined && "latency" in r ? r.latency.mean : Number.NaN;
  };
  const synBase = mean(serviceTasks[0]);
  const restoreBase = mean(serviceTasks[3]);
  console.table(
    serviceTasks.map((name) => {
      const restore = name.startsWith("restore");
      const ms = mean(name);
      return {
        task: name,
        "time per op": restore ? `${ms.toFixed(2)} ms/restore` : `${((ms / BATCH) * 1e6).toFixed(0)} ns/packet`,
        "vs 10 services": `${(ms / (restore ? restoreBase : synBase)).toFixed(2)}x`,
      };
    }),
  );
}

await main();
