// Bridge and VXLAN throughput: packets per second for veth -> bridge -> veth with an FDB hit (as a
// plain switch, and as a node's cni0 with br_netfilter on but no rules), and for VXLAN encapsulation
// plus decapsulation (vxlan0 -> namespace output -> veth underlay -> namespace input -> UDP socket ->
// vxlan0), as ratios against copying the same frame's bytes once, measured in the same run.
import { Bench } from "tinybench";
import { Simulator } from "../src/engine/simulator.js";
import { BridgeDevice } from "../src/net/bridge.js";
import type { MasterPort, NetDevice, StackPort } from "../src/net/device.js";
import { VethDevice } from "../src/net/veth.js";
import { VxlanDevice } from "../src/net/vxlan.js";
import { NetWorld } from "../src/net/world.js";
import { NetNamespace } from "../src/net/stack/namespace.js";
import { SkBuff } from "../src/skb/skbuff.js";
import { DeliveryKind } from "../src/trace/ledger.js";
import { writeMac } from "../src/util/mac.js";
import { write16, write32 } from "../src/wire/bytes.js";
import { setIpv4HeaderChecksum } from "../src/wire/checksum.js";

const BATCH = 1_000;
const MAC_A = 0x020000000001;
const MAC_B = 0x020000000002;

/** A 98-byte frame (Ethernet + IPv4 + UDP + 56 bytes), like a ping. */
function frame(): Uint8Array {
  const f = new Uint8Array(98);
  writeMac(f, 0, MAC_B);
  writeMac(f, 6, MAC_A);
  write16(f, 12, 0x0800);
  f[14] = 0x45;
  write16(f, 16, 84);
  f[22] = 64;
  f[23] = 17;
  write32(f, 26, 0x0af40002);
  write32(f, 30, 0x0af40003);
  setIpv4HeaderChecksum(f, 14, 20);
  write16(f, 34, 40000);
  write16(f, 36, 9000);
  write16(f, 38, 64);
  return f;
}

/** Counts frames as delivered; as a master it takes a port's frames. */
class Sink implements StackPort, MasterPort {
  readonly name = "sink";
  readonly nodeName = "bench";
  count = 0;
  constructor(private readonly world: NetWorld) {}
  input(): void {
    this.count++;
    this.world.ledger.deliver(DeliveryKind.EXTERNAL);
  }
  handleFrame(): void {
    this.input();
  }
  deviceByIndex(): NetDevice | undefined {
    return undefined;
  }
}

const bytes = frame();

/** One reusable packet: reset to the frame before each send (no allocation per packet). */
function reusable(world: NetWorld): { skb: SkBuff; reset: () => SkBuff } {
  const skb = SkBuff.fromBytes(world.ledger.admit(), bytes);
  const head = skb.head;
  const tail = skb.tail;
  return {
    skb,
    reset: () => {
      skb.head = head;
      skb.tail = tail;
      skb.data.set(bytes, head);
      skb.hops = 0;
      return skb;
    },
  };
}

/** veth a0|a1 -> bridge -> b1|b0 -> sink; the FDB already knows MAC_B behind b1. */
function bridgePath(withNamespace: boolean): { send: () => void; sink: Sink } {
  const world = new NetWorld(new Simulator({ seed: 1 }));
  const br = new BridgeDevice(world, "br0", 0x02000000aaaa, { macSet: true });
  const [a0, a1] = VethDevice.pair(world, "a0", MAC_A, "a1", 0x020000000011);
  const [b0, b1] = VethDevice.pair(world, "b0", MAC_B, "b1", 0x020000000012);
  if (withNamespace) {
    const ns = new NetNamespace(world, "node", "node");
    ns.addDevice(br);
    ns.addDevice(a1);
    ns.addDevice(b1);
  }
  br.addPort(a1);
  br.addPort(b1);
  const sink = new Sink(world);
  b0.stack = sink;
  br.fdb.learn(MAC_B, br.port(b1)!.index, 0);
  const { reset } = reusable(world);
  return { send: () => a0.transmit(reset()), sink };
}

/** vxlan0 (node A) -> ip_local_out -> veth underlay -> node B input -> UDP 8472 -> vxlan0 (node B) -> sink. */
function vxlanPath(): { send: () => void; sink: Sink } {
  const world = new NetWorld(new Simulator({ seed: 1 }));
  const a = new NetNamespace(world, "a", "a");
  const b = new NetNamespace(world, "b", "b");
  const [ua, ub] = VethDevice.pair(world, "eth0", 0x02000000ee01, "eth0", 0x02000000ee02);
  a.addDevice(ua);
  b.addDevice(ub);
  a.addAddress(ua, 0xc0a80101, 24);
  b.addAddress(ub, 0xc0a80102, 24);
  a.neigh.addStatic(ua, 0xc0a80102, ub.mac);
  const va = new VxlanDevice(world, "vxlan0", 0x02000000ff01, { vni: 1, remote: 0xc0a80102, learning: false });
  const vb = new VxlanDevice(world, "vxlan0", 0x02000000ff02, { vni: 1, learning: false });
  a.addDevice(va);
  b.addDevice(vb);
  va.open();
  vb.open();
  const sink = new Sink(world);
  vb.master = sink;
  const { reset } = reusable(world);
  return { send: () => va.transmit(reset()), sink };
}

const copyTarget = new Uint8Array(bytes.length);
const sw = bridgePath(false);
const node = bridgePath(true);
const vx = vxlanPath();

const bench = new Bench({ time: 500, warmupTime: 100 });
bench.add("baseline: copy the frame's bytes", () => {
  for (let i = 0; i < BATCH; i++) copyTarget.set(bytes);
});
bench.add("veth -> bridge (switch) -> veth, FDB hit", () => {
  for (let i = 0; i < BATCH; i++) sw.send();
});
bench.add("veth -> cni0 (br_netfilter on, no rules) -> veth", () => {
  for (let i = 0; i < BATCH; i++) node.send();
});
bench.add("vxlan encap -> underlay -> decap", () => {
  for (let i = 0; i < BATCH; i++) vx.send();
});
await bench.run();

for (const s of [sw.sink, node.sink, vx.sink]) {
  if (s.count === 0) throw new Error("a bench path delivered nothing");
}
const pps = (name: string): number => {
  const t = bench.tasks.find((x) => x.name === name);
  const r = t?.result;
  if (r === undefined || !("throughput" in r)) return 0;
  return r.throughput.mean * BATCH;
};
const base = pps("baseline: copy the frame's bytes");
const rows = bench.tasks.map((t) => {
  const p = pps(t.name);
  return { path: t.name, "packets/s": Math.round(p).toLocaleString("en-US"), "ratio to copy": (p / base).toFixed(3) };
});
console.table(rows);
