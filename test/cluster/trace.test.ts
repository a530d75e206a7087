// `trace` on the seed lab with the ipBlock policy (seed-lab.md networking row 6): the client's SYN to
// NodePort 30790 on worker31 is DNATed to web1 in PREROUTING, masqueraded to worker31's tunl0 address
// in POSTROUTING, IPIP-encapsulated to worker32, and dropped there by policy (133) with the explanation
// naming the ipBlock. Through worker32 itself the policy sees 10.1.8.100 and the handshake completes.
import { describe, it, before } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { DropReason } from "../../datapath/reasons.js";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { formatTracePath, parseTraceTarget } from "../../src/cluster/trace-path.js";
import { loadFiles } from "../../src/k8s/load.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { trace } from "./support/trace.js";

const lab = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);
const W31 = "worker31.cyh.cloud";
const W32 = "worker32.cyh.cloud";

describe("trace: client -> NodePort under the ipBlock policy", () => {
  let rt: ClusterRuntime;
  before(async () => {
    const load = await loadFiles([lab("cluster.yaml"), lab("workloads.yaml"), lab("policies/05-ingress-from-ipblock.yaml")], { namespace: "web" });
    const r = buildCluster(load);
    if (!r.ok) assert.fail(formatClusterError(r.error));
    rt = r.value;
  });

  it("through worker31: DNAT, masquerade to worker31's tunl0 address, IPIP to worker32, dropped 133 there", () => {
    const p = trace(rt, "ext/client", `node/${W31}:30790`);
    const web1 = formatIPv4(rt.pod("web/web1")!.ip);
    const tunl0 = formatIPv4(rt.node(W31)!.ns.primaryAddress(rt.node(W31)!.ns.deviceByName("tunl0")!));
    assert.equal(p.outcome, `dropped:${DropReason.POLICY_DENIED}`);
    const first = p.hops[0]!.packetId;
    const hops = p.hops.filter((h) => h.packetId === first);
    const dnat = hops.find((h) => h.note.startsWith("DNAT"));
    assert.ok(dnat, "a DNAT hop");
    assert.equal(dnat.node, W31);
    assert.equal(dnat.hook, "PREROUTING");
    assert.equal(dnat.note, `DNAT 10.1.8.31:30790 -> ${web1}:80`);
    const snat = hops.find((h) => h.note.startsWith("SNAT"));
    assert.ok(snat, "a masquerade hop");
    assert.equal(snat.node, W31);
    assert.equal(snat.hook, "POSTROUTING");
    assert.equal(formatIPv4(snat.tuple.src), tunl0, "masqueraded to worker31's tunl0 address");
    const encap = hops.find((h) => /encap ipip/.test(h.note));
    assert.ok(encap, "an IPIP encapsulation hop");
    const outer = encap.outer ?? encap.tuple;
    assert.deepEqual([formatIPv4(outer.src), formatIPv4(outer.dst), outer.proto], ["10.1.8.31", "10.1.8.32", 4]);
    const drop = p.drops.find((d) => d.record.packetId === first);
    assert.ok(drop, "the first SYN's drop");
    assert.equal(drop.record.reason, DropReason.POLICY_DENIED);
    assert.equal(drop.reasonName, "POLICY_DENIED");
    assert.equal(drop.record.node, W32);
    assert.equal(formatIPv4(drop.record.after.src), tunl0);
    assert.match(drop.record.explanation ?? "", /ipBlock 10\.1\.8\.0\/24 does not contain/);
    assert.ok(dnat.seq < snat.seq && snat.seq < encap.seq && encap.seq < drop.record.seq, "DNAT -> SNAT -> encap -> drop");
    const text = formatTracePath(p).join("\n");
    assert.match(text, /verdict: dropped:133/);
    assert.match(text, /drop: POLICY_DENIED \(133\) on worker32\.cyh\.cloud/);
  });

  it("through worker32 (hosting web1): no masquerade before the policy, connected", () => {
    const p = trace(rt, "ext/client", `node/${W32}:30790/TCP`);
    assert.equal(p.outcome, "connected");
    assert.equal(p.drops.length, 0);
    assert.ok(p.hops.some((h) => h.node === W32 && h.note.startsWith("DNAT")));
  });

  it("rejects destinations it cannot trace, naming them", () => {
    for (const bad of ["node/worker31.cyh.cloud/TCP", "web/nope:80", "10.1.8.31:80/ICMP", "svc/web/web1:70000/UDP"]) {
      const r = parseTraceTarget(rt, bad);
      assert.ok(!r.ok, bad);
    }
    for (const [bad, proto] of [["10.1.8.31:80/FOO", "FOO"], ["web/web1:80/tcpp", "tcpp"], ["10.1.8.31/ICMPV6", "ICMPV6"], ["svc/web/web1:80/", ""]]) {
      const r = parseTraceTarget(rt, bad!);
      assert.ok(!r.ok && r.error === `--to "${bad}": unknown protocol "${proto}" (TCP, UDP, SCTP or ICMP)`, r.ok ? bad : r.error);
    }
    const lower = parseTraceTarget(rt, "web/web1:80/udp");
    assert.ok(lower.ok && lower.value.protocol === "UDP" && lower.value.port === 80);
    const svc = parseTraceTarget(rt, "svc/web/web1");
    assert.ok(svc.ok);
    assert.equal(svc.value.port, 80);
  });
});
