// Host stack hot paths: a UDP datagram routed through a forwarding namespace (Ethernet in, route,
// TTL and checksum update, FORWARD/POSTROUTING, neighbour, Ethernet out) against the same datagram
// delivered locally by the receiving namespace alone (baseline in the same run); and the routing
// table's longest-prefix match over 10^4 routes against a linear scan of the same routes.

import { Bench } from "tinybench";
import { Simulator } from "../src/engine/simulator.js";
import { VethDevice } from "../src/net/veth.js";
import { NetWorld } from "../src/net/world.js";
import { NetNamespace, SocketMode, type Route } from "../src/net/stack/index.js";
import { SkBuff } from "../src/skb/skbuff.js";
import { DeliveryKind } from "../src/trace/ledger.js";
import { SeededRng } from "../src/util/rng.js";
import { ipv4Mask } from "../src/util/ip.js";
import { unwrap } from "../src/util/result.js";
import { writeMac } from "../src/util/mac.js";
import { write16, write32 } from "../src/wire/bytes.js";
import { setIpv4HeaderChecksum, setL4ChecksumV4 } from "../src/wire/checksum.js";

const BATCH = 1_000;
const A = 0x0a010002;
const B = 0x0a020002;

/** An Ethernet/IPv4/UDP frame of 64 payload bytes from A to B, TTL 64, with valid checksums. */
function udpFrame(dstMac: number, srcMac: number): Uint8Array {
  const f = new Uint8Array(14 + 20 + 8 + 64);
  writeMac(f, 0, dstMac);
  writeMac(f, 6, srcMac);
  write16(f, 12, 0x0800);
  f[14] = 0x45;
  write16(f, 16, 20 + 8 + 64);
  f[22] = 64;
  f[23] = 17;
  write32(f, 26, A);
  write32(f, 30, B);
  setIpv4HeaderChecksum(f, 14, 20);
  write16(f, 34, 4000);
  write16(f, 36, 5000);
  write16(f, 38, 8 + 64);
  setL4ChecksumV4(f, 34, 8 + 64, 17, A, B);
  return f;
}

/** Sender device -> (router) -> B, whose UDP 5000 handler counts and ends each packet. */
function path(routed: boolean): () => void {
  const world = new NetWorld(new Simulator({ seed: 1 }));
  const b = new NetNamespace(world, "b", "n");
  const count = { n: 0 };
  unwrap(b.bindUdp(5000, () => {
    count.n++;
    world.ledger.deliver(DeliveryKind.SOCKET);
  }, SocketMode.TUNNEL));
  let inject: VethDevice;
  let frame: Uint8Array;
  if (routed) {
    const r = new NetNamespace(world, "r", "n");
    r.sysctl.ipForward = true;
    const [src, vra] = VethDevice.pair(world, "src", 0x020000000001, "vra", 0x020000000002);
    const [vrb, vb] = VethDevice.pair(world, "vrb", 0x020000000003, "vb", 0x020000000004);
    unwrap(r.addDevice(vra));
    unwrap(r.addDevice(vrb));
    unwrap(b.addDevice(vb));
    unwrap(r.addAddress(vra, 0x0a010001, 24));
    unwrap(r.addAddress(vrb, 0x0a020001, 24));
    unwrap(b.addAddress(vb, B, 24));
    r.neigh.addStatic(vrb, B, vb.mac);
    unwrap(b.routes.add({ dst: 0, prefixLen: 0, via: 0x0a020001 }));
    inject = src;
    frame = udpFrame(vra.mac, src.mac);
  } else {
    const [src, vb] = VethDevice.pair(world, "src", 0x020000000001, "vb", 0x020000000004);
    unwrap(b.addDevice(vb));
    unwrap(b.addAddress(vb, B, 24));
    inject = src;
    frame = udpFrame(vb.mac, src.mac);
  }
  const skbs = Array.from({ length: BATCH }, () => SkBuff.fromBytes(0, frame));
  return () => {
    for (const skb of skbs) {
      skb.head = 128;
      skb.tail = 128 + frame.length;
      skb.data.set(frame, 128);
      inject.transmit(skb);
    }
    if (count.n < BATCH) throw new Error(`only ${count.n} packets arrived`);
    count.n = 0;
  };
}

function lookups(): { fast: () => void; scan: () => void } {
  const rng = new SeededRng(9);
  const world = new NetWorld(new Simulator({ seed: 1 }));
  const ns = new NetNamespace(world, "t", "n");
  const [dev] = VethDevice.pair(world, "x", 1, "y", 2);
  unwrap(ns.addDevice(dev));
  const routes: Route[] = [];
  for (let i = 0; i < 10_000; i++) {
    const len = [16, 24, 24, 32][i % 4]!;
    const r = ns.routes.add({ dst: (rng.nextU32() & ipv4Mask(len)) >>> 0, prefixLen: len, dev });
    if (r.ok) routes.push(r.value);
  }
  const probes = Array.from({ length: BATCH }, (_, i) => (i % 2 === 0 ? routes[i % routes.length]!.dst : rng.nextU32()));
  let sink = 0;
  return {
    fast: () => {
      for (const p of probes) sink += ns.routes.lookup(p) === null ? 0 : 1;
    },
    scan: () => {
      for (const p of probes) {
        let best: Route | null = null;
        for (const r of routes) if (((p & ipv4Mask(r.prefixLen)) >>> 0) === r.dst && (best === null || r.prefixLen > best.prefixLen)) best = r;
        sink += best === null ? 0 : 1;
      }
      if (sink < 0) throw new Error("unreachable");
    },
  };
}

function perSecond(bench: Bench, name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  if (result === undefined || !("period" in result)) throw new Error(`bench task ${name} has no result`);
  return (BATCH * 1000) / result.period;
}

const bench = new Bench({ time: 500, warmupTime: 100 });
const routed = path(true);
const local = path(false);
const lpm = lookups();
bench.add("routed", routed);
bench.add("local", local);
bench.add("lpm", lpm.fast);
bench.add("scan", lpm.scan);
await bench.run();
const m = (x: number): string => `${(x / 1e6).toFixed(2)} M/s`;
console.log("host stack: packets (or lookups) per second; ratio against the baseline measured in the same run");
console.table([
  { path: "A -> R (forward) -> B (UDP socket)", rate: m(perSecond(bench, "routed")), baseline: `local delivery only ${m(perSecond(bench, "local"))}`, ratio: `${(perSecond(bench, "routed") / perSecond(bench, "local")).toFixed(2)}x` },
  { path: "route lookup, 10^4 routes", rate: m(perSecond(bench, "lpm")), baseline: `linear scan ${m(perSecond(bench, "scan"))}`, ratio: `${(perSecond(bench, "lpm") / perSecond(bench, "scan")).toFixed(0)}x` },
]);
