import { test } from "node:test";
import assert from "node:assert/strict";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import { formatRoute } from "../../src/net/stack/route-table.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { loadShape } from "./support/clusters.js";
import { ping } from "./support/probes.js";

test("smoke flannel", () => {
  const r = buildCluster(loadShape({ plugin: "flannel", mode: "vxlan" }));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  const rt = r.value;
  for (const p of rt.pods()) console.log(p.key, p.node, formatIPv4(p.ip));
  for (const n of rt.nodes.values()) console.log(n.name, n.ns.routes.list("main").map(formatRoute));
  const a = rt.pod("default/a")!;
  const b = rt.pod("default/b")!;
  const c = rt.pod("default/c")!;
  console.log("a->b", ping(rt, a.ns, b.ip));
  console.log("a->c", ping(rt, a.ns, c.ip));
  console.log("n1->c", ping(rt, rt.node("n1")!.ns, c.ip));
  console.log(rt.world.ledger);
});

test("smoke calico", () => {
  const r = buildCluster(loadShape({ plugin: "calico", mode: "ipip" }));
  if (!r.ok) assert.fail(formatClusterError(r.error));
  const rt = r.value;
  console.log("now", rt.sim.now, rt.notices());
  for (const p of rt.pods()) console.log(p.key, p.node, formatIPv4(p.ip));
  for (const n of rt.nodes.values()) console.log(n.name, n.ns.routes.list("main").map(formatRoute));
  const a = rt.pod("default/a")!;
  const b = rt.pod("default/b")!;
  const c = rt.pod("default/c")!;
  console.log("a->b", ping(rt, a.ns, b.ip));
  console.log("a->c", ping(rt, a.ns, c.ip));
  console.log("n1->c", ping(rt, rt.node("n1")!.ns, c.ip));
  console.log(rt.world.ledger);
  const { CalicoPlugin } = require_calico();
  void CalicoPlugin;
});
function require_calico() { return { CalicoPlugin: null }; }
