// The CNI conformance suite: the same tests for calico-ipip (iptables and eBPF dataplanes), calico-vxlan,
// calico-bgp (no encapsulation), flannel-vxlan and flannel-host-gw. Pod to pod on one node and across nodes, node to
// pod, MTU/DF behaviour, the encapsulation seen on the underlay, packet conservation and determinism.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { formatIPv4 } from "../../src/util/ip.js";
import type { Layer } from "../../src/wire/layers.js";
import { loadShape, type ClusterShape } from "../cluster/support/clusters.js";
import { PcapTap } from "../cluster/support/capture.js";
import { ping, udpDf } from "../cluster/support/probes.js";

interface Flavour {
  readonly name: string;
  readonly shape: ClusterShape;
  /** Pod MTU as the CNI computes it from a 1500-byte underlay. */
  readonly podMtu: number;
  /** Layer protocols of an echo request from pod a to pod c as captured on n1's eth0. */
  readonly onWire: string[];
  readonly check: (layers: Layer[]) => void;
}

const find = <P extends Layer["proto"]>(layers: Layer[], proto: P, nth = 0): Extract<Layer, { proto: P }> =>
  layers.filter((l) => l.proto === proto)[nth] as Extract<Layer, { proto: P }>;

const FLAVOURS: Flavour[] = [
  {
    name: "calico-ipip",
    shape: { plugin: "calico", mode: "ipip" },
    podMtu: 1480,
    onWire: ["eth", "ipv4", "ipv4", "icmp"],
    check: (l) => assert.deepEqual([find(l, "ipv4").protocol, find(l, "ipv4").src, find(l, "ipv4").dst], [4, "10.9.0.11", "10.9.0.12"]),
  },
  {
    name: "calico-ipip-ebpf",
    shape: { plugin: "calico", mode: "ipip", dataplane: "ebpf" },
    podMtu: 1480,
    onWire: ["eth", "ipv4", "ipv4", "icmp"],
    check: (l) => assert.deepEqual([find(l, "ipv4").protocol, find(l, "ipv4").src, find(l, "ipv4").dst], [4, "10.9.0.11", "10.9.0.12"]),
  },
  {
    name: "calico-vxlan",
    shape: { plugin: "calico", mode: "vxlan" },
    podMtu: 1450,
    onWire: ["eth", "ipv4", "udp", "vxlan", "eth", "ipv4", "icmp"],
    check: (l) => assert.deepEqual([find(l, "udp").dstPort, find(l, "vxlan").vni], [4789, 4096]),
  },
  {
    name: "calico-bgp",
    shape: { plugin: "calico", mode: "none" },
    podMtu: 1500,
    onWire: ["eth", "ipv4", "icmp"],
    check: () => {},
  },
  {
    name: "flannel-vxlan",
    shape: { plugin: "flannel", mode: "vxlan" },
    podMtu: 1450,
    onWire: ["eth", "ipv4", "udp", "vxlan", "eth", "ipv4", "icmp"],
    check: (l) => assert.deepEqual([find(l, "udp").dstPort, find(l, "vxlan").vni], [8472, 1]),
  },
  {
    name: "flannel-host-gw",
    shape: { plugin: "flannel", mode: "host-gw" },
    podMtu: 1500,
    onWire: ["eth", "ipv4", "icmp"],
    check: () => {},
  },
];

function build(shape: ClusterShape): ClusterRuntime {
  const r = buildCluster(loadShape(shape));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

/** The captured frames on n1's eth0 while pod a pings pod c. */
async function pingOnWire(rt: ClusterRuntime): Promise<{ bytes: Uint8Array; layers: Layer[] }[]> {
  const tap = new PcapTap(rt.node("n1")!.eth0);
  const a = rt.pod("default/a")!;
  assert.ok(ping(rt, a.ns, rt.pod("default/c")!.ip));
  return tap.finish();
}

for (const f of FLAVOURS) {
  describe(`CNI conformance: ${f.name}`, () => {
    let rt: ClusterRuntime;
    before(() => {
      rt = build(f.shape);
    });

    it("pod to pod on one node", () => {
      assert.equal(ping(rt, rt.pod("default/a")!.ns, rt.pod("default/b")!.ip), true);
    });

    it("pod to pod across nodes", () => {
      assert.equal(ping(rt, rt.pod("default/a")!.ns, rt.pod("default/c")!.ip), true);
      assert.equal(ping(rt, rt.pod("default/c")!.ns, rt.pod("default/b")!.ip), true);
    });

    it("node to pod, on its own node and across", () => {
      assert.equal(ping(rt, rt.node("n1")!.ns, rt.pod("default/a")!.ip), true);
      assert.equal(ping(rt, rt.node("n2")!.ns, rt.pod("default/a")!.ip), true);
    });

    it(`pod MTU is ${f.podMtu}: the host MTU minus the encapsulation overhead`, () => {
      for (const p of rt.pods()) assert.equal(p.iface.mtu, f.podMtu, p.key);
    });

    it("a DF packet of the pod MTU crosses nodes; one byte more gets fragmentation-needed with the MTU", () => {
      const a = rt.pod("default/a")!;
      const c = rt.pod("default/c")!;
      const fits = udpDf(rt, a.ns, c.ip, f.podMtu);
      assert.deepEqual(fits.map((s) => [s.type, s.code, formatIPv4(s.from)]), [[3, 3, formatIPv4(c.ip)]], "delivered: no listener, so port unreachable from c");
      const over = udpDf(rt, a.ns, c.ip, f.podMtu + 1);
      assert.deepEqual(over.map((s) => [s.type, s.code, s.mtu]), [[3, 4, f.podMtu]]);
      if (f.podMtu < 1500) assert.deepEqual(udpDf(rt, a.ns, c.ip, 1500).map((s) => [s.type, s.code, s.mtu]), [[3, 4, f.podMtu]], "a 1500-byte DF packet does not fit the overlay");
    });

    it(`the underlay capture shows ${f.onWire.join(" / ")}`, async () => {
      const frames = await pingOnWire(rt);
      const a = formatIPv4(rt.pod("default/a")!.ip);
      const request = frames.find((fr) => fr.layers.some((l) => l.proto === "icmp" && l.type === 8));
      assert.ok(request, "the echo request left n1's eth0");
      assert.deepEqual(request.layers.map((l) => l.proto).filter((p) => p !== "payload"), f.onWire);
      const inner = request.layers.filter((l) => l.proto === "ipv4").at(-1);
      assert.equal(inner?.proto === "ipv4" ? inner.src : "", a, "the pod address travels unchanged");
      f.check(request.layers);
    });

    it("every packet is delivered or dropped (ledger conservation)", () => {
      rt.runUntilIdle();
      const l = rt.world.ledger;
      assert.ok(l.entered > 0);
      assert.equal(l.entered, l.delivered + l.dropped + l.inFlight);
      assert.equal(l.inFlight, 0);
    });

    it("determinism: the same seed gives the same addresses and the same bytes on the wire", async () => {
      const one = build(f.shape);
      const two = build(f.shape);
      assert.deepEqual(one.pods().map((p) => [p.key, p.ip]), two.pods().map((p) => [p.key, p.ip]));
      const hex = (fr: { bytes: Uint8Array }[]) => fr.map((x) => Buffer.from(x.bytes).toString("hex"));
      assert.deepEqual(hex(await pingOnWire(one)), hex(await pingOnWire(two)));
      const other = build({ ...f.shape, seed: 99 });
      assert.notDeepEqual(hex(await pingOnWire(one)), hex(await pingOnWire(other)), "another seed draws other MACs");
    });
  });
}
