// VXLAN encapsulation byte for byte on the underlay, kernel vs model. Two namespaces v1 (192.0.2.1)
// and v2 (192.0.2.2) joined by a veth underlay u1/u2, each with two VXLAN devices as flannel makes them
// (`local`, `dev`, no multicast group, an all-zeros FDB entry towards the other VTEP): vx42 with
// `dstport 4789` and vx43 without dstport (Linux then uses 8472). Inner frames are sent straight into
// v1's vxlan device (AF_PACKET, as if bridged into it); compared: the outer frames arriving on u2, the
// inner frames v2's device delivers, and what v2's device learned.
//
// Fields that legitimately differ, and the rules checked instead:
//  - outer IPv4 ID: DF is clear, so Linux takes it from ip_select_ident's hashed, randomly perturbed
//    counters; not compared. The outer IPv4 header checksum follows from it: only its validity is compared.
//  - outer UDP source port: udp_flow_src_port hashes the inner flow with a per-boot random key; it
//    must lie in [32768, 60999) (the ephemeral range, max exclusive), be the same for every frame of one
//    flow, and the same for both directions of a flow (the flow hash is symmetric).
//  - outer UDP checksum: follows from the source port; only its presence/validity is compared.

import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { VxlanDevice } from "../../src/net/vxlan.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { formatMac } from "../../src/util/mac.js";
import { read16 } from "../../src/wire/bytes.js";
import { KernelLab, kernelSkipReason } from "./harness/lab.js";
import { KernelCapture } from "./harness/capture.js";
import { frame, icmpEchoFrame, ip4, mac, rawFrame, tcpFrame, TcpFlag, udpFrame } from "./harness/frames.js";
import { ModelLab, must } from "./harness/model.js";
import { describeFrame, diffFrameLists, formatDiffs, generatedFrameRules, type DiffOptions } from "./harness/compare.js";

const U1 = { mac: "02:00:00:0c:00:01", ip: "192.0.2.1" } as const;
const U2 = { mac: "02:00:00:0c:00:02", ip: "192.0.2.2" } as const;
const DEVICES = [
  { name: "vx42", vni: 42, port: 4789, args: ["dstport", "4789"] },
  { name: "vx43", vni: 43, port: 8472, args: [] as string[] },
] as const;
type Dev = (typeof DEVICES)[number];
const devMac = (d: Dev, side: 1 | 2): string => `02:00:00:${d.vni.toString(16)}:00:0${side}`;

/** Inner frames: flow X twice, X reversed, flow Z with ECT(0), a CE-marked frame, an ARP-typed broadcast. */
function innerFrames(d: Dev): { frames: Uint8Array[]; flowOf: string[] } {
  const vm1 = devMac(d, 1);
  const other = "02:00:00:00:99:99"; // not v2's device MAC: v2's stack ignores these frames (PACKET_OTHERHOST)
  const x = { srcMac: vm1, dstMac: other, src: "10.200.42.1", dst: "10.200.42.2" };
  const frames = [
    udpFrame({ ...x, id: 1, sport: 5000, dport: 6000, payload: "first" }),
    udpFrame({ ...x, id: 2, sport: 5000, dport: 6000, payload: "second frame" }),
    udpFrame({ srcMac: "02:00:00:00:77:77", dstMac: other, src: "10.200.42.2", dst: "10.200.42.1", id: 3, sport: 6000, dport: 5000 }),
    tcpFrame({ ...x, id: 4, tos: 0x02, df: true, sport: 5001, dport: 80, seq: 7, flags: TcpFlag.SYN }),
    udpFrame({ ...x, id: 5, tos: 0xb3, sport: 5002, dport: 6000 }),
    rawFrame({ srcMac: vm1, dstMac: "ff:ff:ff:ff:ff:ff" }, 6, 0x0806),
  ];
  return { frames, flowOf: ["X", "X", "X", "Z", "W", "arp"] };
}

const OUTER_RULES: DiffOptions = {
  ignoreFields: ["ipv4[0].id", "udp[0].srcPort"],
  maskBytes: [[18, 20], [24, 26], [34, 36], [40, 42]],
};

/** Outer frames v2 must refuse: an unknown VNI on a bound port (dropped silently), an unbound port (port unreachable). */
function refusedOuter(): Uint8Array[] {
  const inner = rawFrame({ srcMac: "02:00:00:00:66:66", dstMac: "02:00:00:00:99:99" }, 7);
  const outer = (dport: number, vni: number, id: number): Uint8Array => {
    const payload = new Uint8Array(8 + inner.length);
    payload[0] = 0x08;
    payload[4] = (vni >>> 16) & 0xff;
    payload[5] = (vni >>> 8) & 0xff;
    payload[6] = vni & 0xff;
    payload.set(inner, 8);
    const f = udpFrame({ srcMac: U1.mac, dstMac: U2.mac, src: U1.ip, dst: U2.ip, id, sport: 50000, dport, payload: payload.length });
    f.set(payload, 42);
    f[40] = 0; // outer UDP checksum 0, as VXLAN over IPv4 may send it
    f[41] = 0;
    return f;
  };
  return [outer(4789, 99, 0x6001), outer(4790, 42, 0x6002)];
}
const refusedMarker = (): Uint8Array => icmpEchoFrame({ srcMac: U1.mac, dstMac: U2.mac, src: U1.ip, dst: U2.ip, id: 0x6003, ident: 0x6363, seq: 1 });
const isEchoReply = (f: Uint8Array): boolean => frame.isIpv4(f) && frame.ipProto(f) === 1 && f[frame.l4(f)] === 0;

interface Seen {
  /** What came back to u1 for refusedOuter() and the marker (sent before the devices' traffic). */
  readonly refused: Uint8Array[];
  readonly outer: Record<string, Uint8Array[]>;
  readonly inner: Record<string, Uint8Array[]>;
  /** What v2's device holds in its FDB: "mac dst ip [permanent]". */
  readonly fdb: Record<string, string[]>;
}

async function kernelRun(): Promise<Seen> {
  const lab = new KernelLab("vx");
  try {
    const v1 = lab.netns("v1");
    const v2 = lab.netns("v2");
    lab.veth(v1, "u1", U1.mac, v2, "u2", U2.mac);
    lab.ip(v1, "addr", "add", `${U1.ip}/24`, "dev", "u1");
    lab.ip(v2, "addr", "add", `${U2.ip}/24`, "dev", "u2");
    lab.ip(v1, "neigh", "add", U2.ip, "lladdr", U2.mac, "dev", "u1", "nud", "permanent");
    lab.ip(v2, "neigh", "add", U1.ip, "lladdr", U1.mac, "dev", "u2", "nud", "permanent");
    // A computed outer UDP checksum is then in the frame, not a partial one left to the NIC.
    lab.txChecksumOff(v1, "u1");
    lab.txChecksumOff(v2, "u2");
    for (const d of DEVICES) {
      for (const [ns, side, local, remote, under] of [[v1, 1, U1.ip, U2.ip, "u1"], [v2, 2, U2.ip, U1.ip, "u2"]] as const) {
        lab.ip(ns, "link", "add", d.name, "address", devMac(d, side), "type", "vxlan", "id", String(d.vni), ...d.args, "local", local, "dev", under);
        lab.exec(ns, "bridge", ["fdb", "append", "00:00:00:00:00:00", "dev", d.name, "dst", remote]);
        lab.ip(ns, "link", "set", d.name, "up");
      }
    }
    const backCap = await KernelCapture.start(lab, v1, "u1", "in");
    await lab.send(v1, "u1", [...refusedOuter(), refusedMarker()]);
    const refused = await backCap.waitFor((fs) => fs.some(isEchoReply), "the echo reply after the refused outer frames");
    await backCap.stop();
    const outerCap = await KernelCapture.start(lab, v2, "u2", "in");
    const seen: Seen = { refused, outer: {}, inner: {}, fdb: {} };
    let outerTotal = 0;
    for (const d of DEVICES) {
      const innerCap = await KernelCapture.start(lab, v2, d.name, "in");
      const { frames } = innerFrames(d);
      await lab.send(v1, d.name, frames);
      outerTotal += frames.length;
      await outerCap.waitFor((fs) => fs.length >= outerTotal, `${frames.length} outer frames from ${d.name}`);
      seen.inner[d.name] = await innerCap.waitFor((fs) => fs.length >= frames.length, `${frames.length} frames decapsulated by ${d.name}`);
      await innerCap.stop();
      seen.fdb[d.name] = lab
        .exec(v2, "bridge", ["fdb", "show", "dev", d.name])
        .split("\n")
        .filter((l) => l.includes(" dst "))
        .map((l) => {
          const w = l.trim().split(/\s+/);
          return `${w[0]} dst ${w[w.indexOf("dst") + 1]}${l.includes("permanent") ? " permanent" : ""}`;
        })
        .sort();
    }
    const outer = await outerCap.stop();
    let at = 0;
    for (const d of DEVICES) {
      const n = innerFrames(d).frames.length;
      seen.outer[d.name] = outer.slice(at, at + n);
      at += n;
    }
    return seen;
  } finally {
    await lab.close();
  }
}

function modelRun(): Seen {
  const m = new ModelLab();
  const v1 = m.ns("v1");
  const v2 = m.ns("v2");
  const [u1, u2] = m.veth(v1, "u1", U1.mac, v2, "u2", U2.mac);
  m.addr(v1, u1, `${U1.ip}/24`);
  m.addr(v2, u2, `${U2.ip}/24`);
  m.neigh(v1, u1, U2.ip, U2.mac);
  m.neigh(v2, u2, U1.ip, U1.mac);
  const outerTap = m.tap(u2, "rx");
  const seen: Seen = { refused: [], outer: {}, inner: {}, fdb: {} };
  const devices: { tx: VxlanDevice; rx: VxlanDevice }[] = [];
  for (const d of DEVICES) {
    const make = (side: 1 | 2, local: string, remote: string): VxlanDevice => {
      const dev = new VxlanDevice(m.world, d.name, mac(devMac(d, side)), { vni: d.vni, ...(d.args.length > 0 ? { dstPort: d.port } : {}), local: ip4(local) });
      must((side === 1 ? v1 : v2).addDevice(dev));
      must(dev.open());
      must(dev.appendFlood(ip4(remote)));
      return dev;
    };
    devices.push({ tx: make(1, U1.ip, U2.ip), rx: make(2, U2.ip, U1.ip) });
  }
  const back = m.tap(u1, "rx");
  m.send(u1, [...refusedOuter(), refusedMarker()]);
  seen.refused.push(...back);
  for (const [i, d] of DEVICES.entries()) {
    const { tx, rx } = devices[i]!;
    const inner = m.tap(rx, "rx");
    const before = outerTap.length;
    m.send(tx, innerFrames(d).frames);
    seen.outer[d.name] = outerTap.slice(before);
    seen.inner[d.name] = inner;
    seen.fdb[d.name] = rx.fdb
      .entries(m.sim.now)
      .map((e) => `${formatMac(e.mac)} dst ${formatIPv4(e.remotes[0]?.ip ?? 0)}${e.isStatic ? " permanent" : ""}`)
      .sort();
  }
  return seen;
}

const sport = (f: Uint8Array): number => read16(f, 34);

const skip = kernelSkipReason();
const flowXPort = (seen: Seen, dev: string): number => sport(seen.outer[dev]![0]!);

describe("VXLAN encapsulation on the underlay: kernel vs model", { skip: skip ?? false, timeout: 120_000 }, () => {
  let kernel: Seen;
  let model: Seen;
  before(async () => {
    kernel = await kernelRun();
    model = modelRun();
  });

  for (const d of DEVICES) {
    it(`${d.name} (dstport ${d.port}): outer frames equal except ID, checksum and source port`, () => {
      const diffs = diffFrameLists(kernel.outer[d.name]!, model.outer[d.name]!, OUTER_RULES);
      assert.equal(diffs.length, 0, formatDiffs(`vxlan ${d.name} outer`, diffs));
      for (const f of kernel.outer[d.name]!) assert.equal(read16(f, 36), d.port, "kernel outer UDP destination port");
    });

    it(`${d.name}: outer source port rules hold in the kernel and in the model`, () => {
      const { flowOf } = innerFrames(d);
      for (const [who, frames] of [["kernel", kernel.outer[d.name]!], ["model", model.outer[d.name]!]] as const) {
        const ports = frames.map(sport);
        for (const p of ports) assert.ok(p >= 32768 && p < 60999, `${who}: source port ${p} outside [32768, 60999)`);
        const byFlow = new Map<string, Set<number>>();
        ports.forEach((p, i) => byFlow.set(flowOf[i]!, (byFlow.get(flowOf[i]!) ?? new Set()).add(p)));
        assert.equal(byFlow.get("X")?.size, 1, `${who}: one flow (both directions) keeps one source port, got ${[...(byFlow.get("X") ?? [])].join(",")}`);
      }
    });

    it(`${d.name}: v2's device delivers the inner frames unchanged`, () => {
      const sent = innerFrames(d).frames;
      assert.equal(diffFrameLists(sent, kernel.inner[d.name]!).length, 0, "kernel delivers the injected frames");
      const diffs = diffFrameLists(kernel.inner[d.name]!, model.inner[d.name]!);
      assert.equal(diffs.length, 0, formatDiffs(`vxlan ${d.name} decapsulated`, diffs));
    });

    it(`${d.name}: v2's device learned the inner source MACs`, () => {
      assert.deepEqual(model.fdb[d.name], kernel.fdb[d.name]);
    });
  }

  it("outer frames v2 refuses: unknown VNI dropped silently, unbound port answered with port unreachable", () => {
    const context = `\n  kernel:\n    ${kernel.refused.map(describeFrame).join("\n    ")}`;
    assert.equal(kernel.refused.length, 2, `kernel oracle: one port unreachable, one echo reply${context}`);
    const diffs = diffFrameLists(kernel.refused, model.refused, generatedFrameRules);
    assert.equal(diffs.length, 0, formatDiffs("vxlan refused outer frames", diffs) + context);
  });

  it("the kernel keys the flow hash per host: one inner flow gets one source port on every device", () => {
    assert.equal(flowXPort(kernel, "vx43"), flowXPort(kernel, "vx42"));
  });

  it("the model keys the flow hash per host too", () => {
    assert.equal(flowXPort(model, "vx43"), flowXPort(model, "vx42"));
  });
});
