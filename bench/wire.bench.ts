// Wire-layer parse throughput: parseFrame on an Ethernet/IPv4/TCP frame and on a VXLAN frame (outer
// headers + a second parse of the inner frame), against `cap`'s own JS decoders (Ethernet/IPV4/TCP/UDP)
// on the same bytes in the same run. Prints packets/s, headers/s and ratios, then shows allocations per
// packet over 10^6 parses (heap growth between batches; --expose-gc as scripts/run-bench.mjs passes it).
import { Bench } from "tinybench";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ParsedHeaders, parseFrame, TunnelKind } from "../src/wire/headers.js";
import { emitEthernet } from "../src/wire/ethernet.js";
import { emitIpv4 } from "../src/wire/ipv4.js";
import { emitUdp } from "../src/wire/udp.js";
import { emitVxlan } from "../src/wire/vxlan.js";
import { emitTcp } from "../src/wire/tcp.js";
import { setL4ChecksumV4 } from "../src/wire/checksum.js";

const BATCH = 1_000;
const ALLOC_PARSES = 1_000_000;

// ---- Frames: a TCP segment with options, and the same frame inside VXLAN ----

function tcpFrame(): Uint8Array {
  const payload = 64;
  const frame = new Uint8Array(14 + 20 + 32 + payload);
  emitEthernet({ dst: 0x020000000002, src: 0x020000000001, etherType: 0x0800 }, frame, 0);
  const ip = { dscp: 0, ecn: 0, totalLength: frame.length - 14, identification: 7, dontFragment: true, moreFragments: false,
    fragmentOffset: 0, ttl: 64, protocol: 6, checksum: 0, src: 0x0a000001, dst: 0x0a000002, options: new Uint8Array(0) };
  emitIpv4(ip, frame, 14);
  emitTcp({ srcPort: 40000, dstPort: 8080, seq: 0x12345678, ack: 0x9abcdef0, flags: 0x18, window: 502, checksum: 0,
    urgentPointer: 0, options: [{ kind: "nop" }, { kind: "nop" }, { kind: "timestamps", value: 1, echo: 2 }, { kind: "sack", blocks: [{ left: 5, right: 9 }] }] }, frame, 34);
  setL4ChecksumV4(frame, 34, frame.length - 34, 6, ip.src, ip.dst);
  return frame;
}

function vxlanFrame(inner: Uint8Array): Uint8Array {
  const frame = new Uint8Array(14 + 20 + 8 + 8 + inner.length);
  emitEthernet({ dst: 0x02000000000b, src: 0x02000000000a, etherType: 0x0800 }, frame, 0);
  emitIpv4({ dscp: 0, ecn: 0, totalLength: frame.length - 14, identification: 1, dontFragment: false, moreFragments: false,
    fragmentOffset: 0, ttl: 64, protocol: 17, checksum: 0, src: 0xc0a80001, dst: 0xc0a80002, options: new Uint8Array(0) }, frame, 14);
  emitUdp({ srcPort: 51234, dstPort: 4789, length: frame.length - 34, checksum: 0 }, frame, 34);
  emitVxlan({ flags: 0x08, vni: 42 }, frame, 42);
  frame.set(inner, 50);
  return frame;
}

const plain = tcpFrame();
const vxlan = vxlanFrame(plain);
const plainBuffer = Buffer.from(plain);
const vxlanBuffer = Buffer.from(vxlan);

// ---- Ours ----

const outer = new ParsedHeaders();
const inner = new ParsedHeaders();
/** XOR of 16-bit values stays a small integer: updating it never allocates (a growing sum would box). */
let sink = 0;

function oursPlain(): void {
  for (let i = 0; i < BATCH; i++) {
    parseFrame(plain, 0, plain.length, outer);
    sink ^= outer.dstPort;
  }
}

function oursVxlan(): void {
  for (let i = 0; i < BATCH; i++) {
    parseFrame(vxlan, 0, vxlan.length, outer);
    if (outer.tunnel === TunnelKind.VXLAN) parseFrame(vxlan, outer.innerOffset, outer.end, inner);
    sink ^= inner.dstPort;
  }
}

// ---- cap's decoders (loaded lazily; optional dependency) ----

type CapResult = { info: Record<string, unknown>; offset: number };
type CapDecoders = {
  Ethernet(b: Buffer, offset?: number): CapResult;
  IPV4(b: Buffer, offset?: number): CapResult;
  TCP(b: Buffer, offset?: number): CapResult;
  UDP(b: Buffer, offset?: number): CapResult;
};

async function loadCap(): Promise<CapDecoders | string> {
  try {
    const name = "cap";
    const mod = (await import(name)) as { decoders?: CapDecoders; default?: { decoders?: CapDecoders } };
    const decoders = mod.decoders ?? mod.default?.decoders;
    return decoders ?? "cap loaded but has no decoders export";
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

function capPlain(cap: CapDecoders): () => void {
  return () => {
    for (let i = 0; i < BATCH; i++) {
      const eth = cap.Ethernet(plainBuffer, 0);
      const ip = cap.IPV4(plainBuffer, eth.offset);
      const tcp = cap.TCP(plainBuffer, ip.offset);
      sink ^= tcp.info["dstport"] as number;
    }
  };
}

function capVxlan(cap: CapDecoders): () => void {
  return () => {
    for (let i = 0; i < BATCH; i++) {
      const eth = cap.Ethernet(vxlanBuffer, 0);
      const ip = cap.IPV4(vxlanBuffer, eth.offset);
      const udp = cap.UDP(vxlanBuffer, ip.offset);
      const innerEth = cap.Ethernet(vxlanBuffer, udp.offset + 8); // cap has no VXLAN decoder: skip its 8 bytes
      const innerIp = cap.IPV4(vxlanBuffer, innerEth.offset);
      const tcp = cap.TCP(vxlanBuffer, innerIp.offset);
      sink ^= tcp.info["dstport"] as number;
    }
  };
}

// ---- Allocation check ----

function getGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/**
 * Heap bytes allocated per packet: after a warm-up pass and a full GC, sums the heap growth between
 * batches of BATCH parses (a drop means a scavenge ran: counted, and that batch's growth is not).
 */
function heapGrowth(fn: () => void, parses: number): { grown: number; gcs: number } {
  const gc = getGc();
  for (let i = 0; i < parses / BATCH; i++) fn();
  gc();
  let previous = process.memoryUsage().heapUsed;
  let grown = 0;
  let gcs = 0;
  for (let i = 0; i < parses / BATCH; i++) {
    fn();
    const now = process.memoryUsage().heapUsed;
    if (now >= previous) grown += now - previous;
    else gcs++;
    previous = now;
  }
  return { grown, gcs };
}

/** heapGrowth minus what the measuring itself allocates (one memoryUsage() result per batch). */
function allocation(fn: () => void, parses: number): { bytesPerPacket: number; gcs: number } {
  const overhead = heapGrowth(() => {}, parses).grown;
  const { grown, gcs } = heapGrowth(fn, parses);
  return { bytesPerPacket: Math.max(0, grown - overhead) / parses, gcs };
}

// ---- Run ----

const HEADERS = { plain: 3, vxlan: 7 }; // eth+ip+tcp; eth+ip+udp+vxlan+eth+ip+tcp

async function main(): Promise<void> {
  const cap = await loadCap();
  const bench = new Bench({ time: 500, warmupTime: 100 });
  bench.add("cnisim parseFrame eth/ipv4/tcp", oursPlain);
  bench.add("cnisim parseFrame vxlan (outer+inner)", oursVxlan);
  if (typeof cap !== "string") {
    bench.add("cap decoders eth/ipv4/tcp", capPlain(cap));
    bench.add("cap decoders vxlan (outer+inner)", capVxlan(cap));
  } else {
    console.log(`cap could not be loaded (${cap}); reporting cnisim alone`);
  }
  await bench.run();
  const packetsPerSecond = (name: string): number => {
    const task = bench.tasks.find((t) => t.name === name);
    const result = task?.result as { latency?: { mean: number } } | undefined;
    return result?.latency ? (BATCH * 1000) / result.latency.mean : NaN;
  };
  const rows = [
    ["eth/ipv4/tcp", "cnisim parseFrame eth/ipv4/tcp", "cap decoders eth/ipv4/tcp", HEADERS.plain],
    ["vxlan outer+inner", "cnisim parseFrame vxlan (outer+inner)", "cap decoders vxlan (outer+inner)", HEADERS.vxlan],
  ] as const;
  console.log("\nframe              | cnisim pkts/s | cnisim headers/s | cap pkts/s  | ratio (cnisim/cap)");
  console.log("-------------------|---------------|------------------|-------------|-------------------");
  for (const [label, ours, theirs, headers] of rows) {
    const a = packetsPerSecond(ours);
    const b = packetsPerSecond(theirs);
    const ratio = Number.isFinite(b) ? `${(a / b).toFixed(1)}x` : "n/a";
    const capText = Number.isFinite(b) ? b.toExponential(2) : "n/a";
    console.log(`${label.padEnd(19)}| ${a.toExponential(2).padStart(13)} | ${(a * headers).toExponential(2).padStart(16)} | ${capText.padStart(11)} | ${ratio}`);
  }
  console.log("\nallocation (heap growth per packet after warm-up, measuring overhead subtracted; scavenges during the loop):");
  const checks: [string, () => void, number][] = [
    ["cnisim eth/ipv4/tcp", oursPlain, ALLOC_PARSES],
    ["cnisim vxlan", oursVxlan, ALLOC_PARSES],
  ];
  if (typeof cap !== "string") checks.push(["cap eth/ipv4/tcp", capPlain(cap), ALLOC_PARSES / 10]);
  for (const [label, fn, parses] of checks) {
    const { bytesPerPacket, gcs } = allocation(fn, parses);
    console.log(`  ${label.padEnd(20)} ${bytesPerPacket.toFixed(3).padStart(9)} B/packet, ${gcs} GCs over ${parses.toExponential(0)} parses`);
  }
  if (sink < 0) console.log(sink); // keeps the parse results observable
}

await main();
