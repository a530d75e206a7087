// Live oracle: every kind of packet the programs rewrite (DNAT of TCP/UDP/SCTP, reverse NAT, SNAT, the
// ICMP reject, VXLAN and IPIP encapsulation) is written to a pcap and decoded by tshark with checksum
// validation on; tshark must find every IP/TCP/UDP/ICMP checksum and SCTP CRC32c good and see the
// addresses we expect (outer and inner). Skipped with a reason when tshark is missing.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatIPv4 } from "../../../src/util/ip.js";
import { IPPROTO_TCP, IPPROTO_UDP } from "../../../src/wire/checksum.js";
import { Verdict } from "../../../datapath/ctx.js";
import { EncapKind, NodePortMode } from "../../../datapath/lib/config.js";
import { ServiceFlag } from "../../../datapath/maps/lb.js";
import { Direction, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { fromContainer } from "../../../datapath/programs/lxc.js";
import { fromNetdev } from "../../../datapath/programs/host.js";
import { CLIENT, IF_A, IF_B, MAC_B, N1, N1_MAC, N2, POD_A, POD_B, POD_C, SYN, SYN_ACK, UPLINK, VIP, buildFrame, node1, run, skbOf, type Node } from "./fixtures.js";
import { classicPcapBytes } from "../../support/classic-pcap.js";

const tshark = spawnSync("tshark", ["--version"], { stdio: "ignore" }).status === 0;
const SKIP = tshark ? false : "tshark is not installed (apt-get install tshark): no live oracle for the rewritten bytes";

function open(n: Node): void {
  for (const p of n.policies.values()) {
    p.upsert(Direction.INGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
    p.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
  }
}

/** One rewritten packet per case: [label, frame bytes, expected ip.src list, expected ip.dst list]. */
function rewrittenPackets(): [string, Uint8Array, string, string][] {
  const cases: [string, Uint8Array, string, string][] = [];
  const ip = (...a: number[]) => a.map(formatIPv4).join(",");

  for (const proto of [IPPROTO_TCP, IPPROTO_UDP, 132]) {
    const n = node1();
    open(n);
    assert.equal(n.maps.lb.upsertBackend(1, POD_B, 8080, proto), 0);
    assert.equal(n.maps.lb.upsertRevNat(3, VIP, 80), 0);
    assert.equal(n.maps.lb.upsertService({ vip: VIP, port: 80, proto, revNatIndex: 3, flags: 0, backendIds: [1] }), 0);
    const req = skbOf(buildFrame({ src: POD_A, dst: VIP, proto, sport: 40000, dport: 80, tcpFlags: SYN, payload: 21 }));
    assert.equal(run(n, fromContainer, req, { ifindex: IF_A }).verdict, Verdict.REDIRECT);
    cases.push([`DNAT proto ${proto}`, req.bytes().slice(), ip(POD_A), ip(POD_B)]);
    const rep = skbOf(buildFrame({ src: POD_B, dst: POD_A, proto, sport: 8080, dport: 40000, tcpFlags: SYN_ACK, srcMac: MAC_B, payload: 9 }));
    assert.equal(run(n, fromContainer, rep, { ifindex: IF_B }).verdict, Verdict.REDIRECT);
    cases.push([`reverse DNAT proto ${proto}`, rep.bytes().slice(), ip(VIP), ip(POD_A)]);
  }

  const r = node1();
  open(r);
  assert.equal(r.maps.lb.upsertService({ vip: VIP, port: 80, proto: IPPROTO_TCP, revNatIndex: 3, flags: ServiceFlag.REJECT_NO_BACKEND, backendIds: [] }), 0);
  // Small enough that the whole datagram is quoted (tshark cannot verify a quote cut at 64 bytes).
  const rej = skbOf(buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, dport: 80, payload: 4 }));
  assert.equal(run(r, fromContainer, rej, { ifindex: IF_A }).verdict, Verdict.REDIRECT);
  cases.push(["ICMP reject", rej.bytes().slice(), ip(VIP, POD_A), ip(POD_A, VIP)]);

  for (const [label, encap, mode] of [
    ["VXLAN NodePort", EncapKind.VXLAN, NodePortMode.TUNNEL],
    ["VXLAN NodePort SNAT", EncapKind.VXLAN, NodePortMode.SNAT],
    ["IPIP NodePort", EncapKind.IPIP, NodePortMode.TUNNEL],
  ] as const) {
    const n = node1({ encap, tunnelPort: 4789, nodePortMode: mode });
    assert.equal(n.maps.lb.upsertBackend(1, POD_C, 8080, IPPROTO_TCP), 0);
    assert.equal(n.maps.lb.upsertService({ vip: 0, port: 30080, proto: IPPROTO_TCP, revNatIndex: 4, flags: ServiceFlag.NODEPORT, backendIds: [1] }), 0);
    const skb = skbOf(buildFrame({ src: CLIENT, dst: N1, proto: IPPROTO_TCP, sport: 50000, dport: 30080, tcpFlags: SYN, dstMac: N1_MAC }));
    assert.equal(run(n, fromNetdev, skb, { ifindex: UPLINK, devMac: N1_MAC }).verdict, Verdict.REDIRECT);
    const innerSrc = mode === NodePortMode.SNAT ? N1 : CLIENT;
    cases.push([label, skb.bytes().slice(), ip(N1, innerSrc), ip(N2, POD_C)]);
  }
  return cases;
}

describe("tshark agrees with the rewritten bytes", { skip: SKIP }, () => {
  it("finds every checksum good and the expected outer/inner addresses", () => {
    const cases = rewrittenPackets();
    const dir = mkdtempSync(join(tmpdir(), "cnisim-datapath-"));
    try {
      const file = join(dir, "rewritten.pcap");
      writeFileSync(file, classicPcapBytes(cases.map((c) => c[1]), 65535));
      const fields = ["ip.src", "ip.dst", "ip.checksum.status", "tcp.checksum.status", "udp.checksum.status", "icmp.checksum.status", "sctp.checksum.status"];
      const args = ["-r", file, "-n", "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=,",
        "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "sctp.checksum:CRC 32c"];
      for (const f of fields) args.push("-e", f);
      const out = spawnSync("tshark", args, { encoding: "utf8" });
      assert.equal(out.status, 0, out.stderr);
      const rows = out.stdout.split("\n").filter((l) => l !== "").map((l) => l.split("\t"));
      assert.equal(rows.length, cases.length);
      rows.forEach((row, i) => {
        const [label, , src, dst] = cases[i]!;
        assert.equal(row[0], src, `${label}: ip.src`);
        assert.equal(row[1], dst, `${label}: ip.dst`);
        // Checksum status 1 = good (0 bad, 2 unverified); VXLAN's outer UDP checksum 0 = not present (3).
        for (let c = 2; c <= 6; c++) {
          for (const status of (row[c] ?? "").split(",").filter((s) => s !== "")) {
            assert.ok(status === "1" || (c === 4 && status === "3" && label.startsWith("VXLAN")), `${label}: ${fields[c]} = ${row[c]}`);
          }
        }
        assert.ok(row[2] !== "", `${label}: tshark checked the IP header`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
