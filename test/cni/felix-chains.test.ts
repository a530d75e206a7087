// Calico's iptables dataplane as felix lays it out: the static chains in raw, mangle and filter in
// felix's order with their cali: comments, established traffic accepted in the per-interface chains,
// a new connection allowed by policy accepted by the mark check at the end of FORWARD, and a workload
// sending from an address that is not its own dropped by the strict rpfilter in raw cali-PREROUTING.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { httpGet } from "../../src/cluster/workloads/http/client.js";
import { HttpServer } from "../../src/cluster/workloads/http/server.js";
import { DropReason } from "../../datapath/reasons.js";
import { SkBuff } from "../../src/skb/skbuff.js";
import type { DropRecord } from "../../src/trace/records.js";
import { formatIPv4, parseIPv4 } from "../../src/util/ip.js";
import { loadShape } from "../cluster/support/clusters.js";
import { ping } from "../cluster/support/probes.js";
import { udpPacket } from "../cluster/replay-support.js";

function calico(mode: string): ClusterRuntime {
  const r = buildCluster(loadShape({ plugin: "calico", mode }));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

/** The rules of one chain as iptables-save prints them, without counters. */
function chainRules(rt: ClusterRuntime, node: string, table: string, chain: string): string[] {
  const save = rt.node(node)!.ns.netfilter.save();
  const start = save.indexOf(`*${table}\n`);
  const end = save.indexOf("COMMIT", start);
  return save
    .slice(start, end)
    .split("\n")
    .filter((l) => l.startsWith(`-A ${chain} `))
    .map((l) => l.replace(/ -m comment --comment "cali:[A-Za-z0-9_-]{16}"/, ""));
}

test("felix's static chains: raw, mangle and filter in felix's order, every rule with a cali: comment", () => {
  const rt = calico("vxlan");
  assert.deepEqual(chainRules(rt, "n1", "raw", "cali-PREROUTING"), [
    "-A cali-PREROUTING -j MARK --set-xmark 0x0/0xf0000",
    "-A cali-PREROUTING -i cali+ -j MARK --set-xmark 0x40000/0x40000",
    "-A cali-PREROUTING -m mark --mark 0x40000/0x40000 -j cali-rpf-skip",
    "-A cali-PREROUTING -m mark --mark 0x40000/0x40000 -j PROGRAM --name rpfilter --validmark --invert",
    "-A cali-PREROUTING -m mark --mark 0x0/0x40000 -j cali-from-host-endpoint",
    "-A cali-PREROUTING -m mark --mark 0x10000/0x10000 -j ACCEPT",
  ]);
  assert.equal(chainRules(rt, "n1", "mangle", "cali-PREROUTING")[0], "-A cali-PREROUTING -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT");
  assert.deepEqual(chainRules(rt, "n1", "filter", "cali-FORWARD"), [
    "-A cali-FORWARD -j MARK --set-xmark 0x0/0xe0000",
    "-A cali-FORWARD -m mark --mark 0x0/0x10000 -j cali-from-hep-forward",
    "-A cali-FORWARD -i cali+ -j cali-from-wl-dispatch",
    "-A cali-FORWARD -o cali+ -j cali-to-wl-dispatch",
    "-A cali-FORWARD -j cali-to-hep-forward",
    "-A cali-FORWARD -j cali-cidr-block",
  ]);
  const iface = rt.pod("default/a")!.hostIface!.name;
  const fw = chainRules(rt, "n1", "filter", `cali-fw-${iface}`);
  assert.equal(fw[0], `-A cali-fw-${iface} -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT`);
  assert.ok(fw.some((l) => l.includes("-p udp") && l.includes("--dport 4789") && l.endsWith("-j DROP")), "VXLAN from workloads is dropped in VXLAN mode");
  const forward = chainRules(rt, "n1", "filter", "FORWARD");
  assert.equal(forward[0], "-A FORWARD -j cali-FORWARD", "felix's jump stays first after kube-proxy's syncs");
  assert.ok(forward.includes('-A FORWARD -m comment --comment "Policy explicitly accepted packet." -m mark --mark 0x10000/0x10000 -j ACCEPT'));
  // Every rule felix wrote carries a comment: iptables runs it as one more match module.
  const save = rt.node("n1")!.ns.netfilter.save();
  const felixLines = save.split("\n").filter((l) => /^-A cali-(PREROUTING|FORWARD|INPUT|OUTPUT|wl-to-host|from-wl-dispatch|to-wl-dispatch|fw-|tw-)/.test(l));
  assert.ok(felixLines.length > 20);
  for (const l of felixLines) assert.match(l, /-m comment --comment "/, l);
});

test("a connection across nodes: its first packets are accepted by felix's mark at the end of FORWARD, the rest in the per-interface chains", () => {
  const rt = calico("vxlan");
  const server = new HttpServer(rt.pod("default/c")!.ns, { port: 8080 });
  assert.ok(server.start().ok);
  let status = 0;
  httpGet(rt.pod("default/a")!.ns, { host: formatIPv4(rt.pod("default/c")!.ip), port: 8080 }, (r) => (status = r.kind === "response" ? r.status : -1));
  rt.runFor(2e9);
  assert.equal(status, 200);
  const f = rt.node("n1")!.ns.netfilter.table("filter");
  const iface = rt.pod("default/a")!.hostIface!.name;
  const markAccept = f.chain("FORWARD")!.rules.find((r) => r.comment === "Policy explicitly accepted packet.")!;
  const established = f.chain(`cali-fw-${iface}`)!.rules[0]!;
  assert.equal(markAccept.packets, 1, "the SYN: allowed by policy (mark set, returned), accepted at the end of FORWARD");
  assert.ok(established.packets >= 4, `the client's later packets are accepted by cali-fw-${iface}'s first rule (${established.packets})`);
  // Each forwarded established packet walks felix's chains: raw and mangle cali-PREROUTING, cali-FORWARD,
  // the dispatch chain and the interface chain (more than a dozen rules per packet on the sender's node).
  let rules = 0;
  for (const t of ["raw", "mangle", "filter"] as const) rules += rt.node("n1")!.ns.netfilter.table(t).rulesEvaluated;
  const forwarded = rt.node("n1")!.ns.counters.ip.ForwDatagrams;
  assert.ok(rules >= 12 * forwarded, `${rules} rules over ${forwarded} forwarded packets`);
});

test("a workload sending from an address that is not its own is dropped by felix's strict rpfilter", () => {
  const rt = calico("none");
  const a = rt.pod("default/a")!;
  const dst = rt.pod("default/c")!.ip;
  assert.equal(ping(rt, a.ns, dst), true, "its own address passes");
  const drops: DropRecord[] = [];
  rt.world.tracer.addSink({ drop: (d) => drops.push(d) });
  // A datagram the pod sends (a raw socket with IP_HDRINCL) from 10.77.0.5.
  const p = udpPacket(parseIPv4("10.77.0.5")!, dst, 40000, 9, new Uint8Array(8));
  a.ns.outputIp(SkBuff.fromBytes(rt.world.ledger.admit(), p));
  rt.runUntilIdle();
  const d = drops.find((x) => x.reason === DropReason.NETFILTER_DROP);
  assert.ok(d !== undefined, JSON.stringify(drops.map((x) => x.site)));
  assert.match(d.site, /raw\/cali-PREROUTING/);
  assert.equal(d.node, "n1");
  assert.match(d.explanation ?? "", /rpfilter: the route back to 10\.77\.0\.5 does not leave by cali/);
});
