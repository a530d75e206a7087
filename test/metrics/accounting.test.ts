// Accounting from the model's own counters: the same pod-to-pod traffic costs the nodes more CPU
// through an encapsulating path (VXLAN, IPIP) than through plain routing, by exactly the tunnel
// steps the packets took, while the pods' own share does not change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createDatapathMaps } from "../../datapath/lib/maps.js";
import { accountCluster, collectMaps, COST_STEPS, DEFAULT_COST_MODEL, Work, type Accounts, type CostModel, type CostStep } from "../../src/metrics/index.js";
import { ip, makeWorld, packet, udpPacket } from "../net/l2/helpers.js";
import { PathMode, twoNodes } from "./two-nodes.js";

const DATAGRAMS = 500;
const PAYLOAD = 1000;

/** Sends DATAGRAMS UDP datagrams pod1 -> pod2, 20 us apart, and accounts the cluster afterwards. */
function run(mode: PathMode, model: CostModel = DEFAULT_COST_MODEL): { accounts: Accounts; delivered: number } {
  const { sim, world } = makeWorld();
  const { nodes, cluster } = twoNodes(world, mode);
  const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
  let delivered = 0;
  b.pod.bindUdp(9000, () => delivered++);
  for (let i = 0; i < DATAGRAMS; i++) {
    sim.schedule(i * 20_000, () => a.pod.outputIp(packet(world, udpPacket(a.podAddr, b.podAddr, 40000, 9000, PAYLOAD))));
  }
  sim.run();
  return { accounts: accountCluster(cluster, model, sim.now), delivered };
}

/** Datapath CPU on a node, its pods' included (the declared baselines left out). */
const datapathNs = (acc: Accounts, i: number): number => acc.nodes[i]!.work.cpuNs(DEFAULT_COST_MODEL);

test("every datagram arrives on each path", () => {
  for (const mode of Object.values(PathMode)) assert.equal(run(mode).delivered, DATAGRAMS, mode);
});

test("VXLAN and IPIP cost both nodes more CPU than host-gw for the same traffic; VXLAN the most", () => {
  const hostGw = run(PathMode.HOST_GW).accounts;
  const ipip = run(PathMode.IPIP).accounts;
  const vxlan = run(PathMode.VXLAN).accounts;
  for (const i of [0, 1]) {
    const [g, p, v] = [hostGw, ipip, vxlan].map((acc) => datapathNs(acc, i));
    assert.ok(g! < p!, `node${i + 1}: host-gw ${g} < ipip ${p}`);
    assert.ok(p! < v!, `node${i + 1}: ipip ${p} < vxlan ${v}`);
  }
});

test("the extra node CPU is the tunnel work: encapsulation and the outer route lookup on the sender, the outer parse, route lookup and decapsulation on the receiver", () => {
  const hostGw = run(PathMode.HOST_GW).accounts;
  const vxlan = run(PathMode.VXLAN).accounts;
  const ipip = run(PathMode.IPIP).accounts;
  const [sendV, recvV] = [vxlan.nodes[0]!.work, vxlan.nodes[1]!.work];
  assert.equal(sendV.packets("vxlanEncap"), DATAGRAMS);
  assert.equal(recvV.packets("vxlanDecap"), DATAGRAMS);
  assert.equal(sendV.packets("vxlanDecap") + recvV.packets("vxlanEncap"), 0, "UDP: nothing comes back");
  assert.equal(ipip.nodes[0]!.work.packets("ipipEncap"), DATAGRAMS);
  assert.equal(ipip.nodes[1]!.work.packets("ipipDecap"), DATAGRAMS);
  // VXLAN's outer UDP checksum (udpcsum, the kernel's default) is derived by local checksum offload from
  // the inner pseudo-header: no pass over the bytes with the NIC's default offloads.
  assert.equal(sendV.bytes("checksum"), 0);
  const tunnelSteps = new Set<CostStep>(["vxlanEncap", "vxlanDecap", "ipipEncap", "ipipDecap", "checksum"]);
  for (const acc of [vxlan, ipip]) {
    for (const i of [0, 1]) {
      const extra = new Map<CostStep, number>();
      for (const step of COST_STEPS) {
        if (tunnelSteps.has(step)) continue;
        const d = acc.nodes[i]!.work.packets(step) - hostGw.nodes[i]!.work.packets(step);
        if (d !== 0) extra.set(step, d);
      }
      const expected = i === 0 ? [["routeLookup", DATAGRAMS]] : [["parse", DATAGRAMS], ["routeLookup", DATAGRAMS]];
      assert.deepEqual([...extra], expected, `node${i + 1}`);
    }
  }
});

test("the pods' share (their namespace and veth) is the same on every path", () => {
  const shares = Object.values(PathMode).map((m) => run(m).accounts.pods.map((p) => p.datapathCpuNs));
  assert.ok(shares[0]![0]! > 0 && shares[0]![1]! > 0);
  for (const s of shares.slice(1)) assert.deepEqual(s, shares[0]);
});

test("costs scale with the CPU clock: half the GHz, twice the datapath time", () => {
  const fast = run(PathMode.VXLAN).accounts;
  const slow = run(PathMode.VXLAN, { ...DEFAULT_COST_MODEL, cpuGHz: 1.5 }).accounts;
  const dp = (acc: Accounts): number => acc.nodes[0]!.hostDatapathCpuNs;
  assert.ok(Math.abs(dp(slow) - 2 * dp(fast)) < 1e-6 * dp(slow));
  assert.equal(slow.nodes[0]!.systemCpuNs, fast.nodes[0]!.systemCpuNs, "the declared baseline does not scale");
});

test("node memory: system baseline plus its pods", () => {
  const { accounts } = run(PathMode.HOST_GW);
  for (const n of accounts.nodes) assert.equal(n.memoryBytes, DEFAULT_COST_MODEL.systemMemoryBytes + DEFAULT_COST_MODEL.idleMemoryBytes);
});

test("eBPF map work: every lookup and insert of a node's maps is charged, service hits as NAT", () => {
  const maps = createDatapathMaps({ ct: 1024, ipcache: 1024, endpoints: 64, lb: 64, tunnel: 64, snat: 1024, fib: 64 });
  maps.ipcache.upsertV4(ip("10.244.1.0"), 24, 300, ip("192.168.1.11"), 0);
  maps.ipcache.upsertV4(ip("10.244.2.0"), 24, 301, ip("192.168.1.12"), 0);
  for (let i = 0; i < 7; i++) maps.ipcache.lookupV4(ip("10.244.2.9"));
  const w = new Work();
  collectMaps(maps, w);
  const v4 = maps.ipcache.v4.stats;
  assert.equal(v4.lookups, 7);
  assert.equal(w.packets("bpfMapLookup"), 7);
  assert.equal(w.packets("bpfMapUpdate"), v4.inserts);
  assert.ok(v4.inserts >= 2);
  assert.equal(w.packets("natRewrite"), 0, "no service frontend was hit");
});
