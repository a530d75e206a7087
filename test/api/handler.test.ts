// The API's documents without kubectl: legacy and aggregated discovery, Table and JSON lists,
// selectors on stored and metrics resources, single objects.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { handleRequest, type ApiResponse } from "../../src/api/index.js";
import { SEED_FILES, serveFiles, type Served } from "./serve-fixture.js";

let served: Served;
before(async () => {
  served = await serveFiles(SEED_FILES, 45e9);
});
after(async () => served.close());

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
const AGGREGATED = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json";

/** A request through the handler; `json` is the parsed body (untyped: the tests read what they check). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function get(pathAndQuery: string, accept?: string): Promise<ApiResponse & { json: any }> {
  const q = pathAndQuery.indexOf("?");
  const r = await handleRequest(served.backend, {
    method: "GET",
    path: q < 0 ? pathAndQuery : pathAndQuery.slice(0, q),
    query: new URLSearchParams(q < 0 ? "" : pathAndQuery.slice(q + 1)),
    accept,
    host: "127.0.0.1:1",
  });
  return { ...r, json: r.contentType.startsWith("application/json") ? JSON.parse(r.body) : null };
}

test("discovery: legacy documents, or aggregated ones with their content type when asked", async () => {
  const legacy = await get("/apis");
  assert.deepEqual(legacy.json.groups.map((g: { name: string }) => g.name), ["apps", "networking.k8s.io", "policy", "metrics.k8s.io"]);
  const agg = await get("/apis", AGGREGATED);
  assert.equal(agg.contentType, "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
  const metrics = agg.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === "metrics.k8s.io");
  assert.deepEqual(
    metrics.versions[0].resources.map((r: { resource: string; scope: string; responseKind: { kind: string } }) => [r.resource, r.scope, r.responseKind.kind]),
    [["nodes", "Cluster", "NodeMetrics"], ["pods", "Namespaced", "PodMetrics"]],
  );
  const core = await get("/api/v1");
  const pods = core.json.resources.find((r: { name: string }) => r.name === "pods");
  assert.deepEqual([pods.kind, pods.namespaced, pods.shortNames, pods.verbs], ["Pod", true, ["po"], ["get", "list"]]);
  assert.deepEqual((await get("/version")).json.gitVersion, "v1.30.2");
});

test("Table lists: the kind's columns, wide ones at priority 1, rows with object metadata", async () => {
  const t = await get("/api/v1/namespaces/web/pods?labelSelector=run%3Dweb1", TABLE);
  assert.equal(t.json.kind, "Table");
  assert.deepEqual(
    t.json.columnDefinitions.map((c: { name: string; priority: number }) => [c.name, c.priority]),
    [["Name", 0], ["Ready", 0], ["Status", 0], ["Restarts", 0], ["Age", 0], ["IP", 1], ["Node", 1], ["Nominated Node", 1], ["Readiness Gates", 1]],
  );
  assert.equal(t.json.rows.length, 1);
  const row = t.json.rows[0];
  assert.deepEqual(row.cells.slice(0, 3), ["web1", "1/1", "Running"]);
  assert.deepEqual([row.object.kind, row.object.metadata.name, row.object.metadata.namespace], ["PartialObjectMetadata", "web1", "web"]);
  const none = await get("/api/v1/nodes?includeObject=None", "application/json;as=Table;v=v1beta1;g=meta.k8s.io");
  assert.equal(none.json.apiVersion, "meta.k8s.io/v1beta1");
  assert.equal(none.json.rows[0].object, undefined);
});

test("JSON lists and objects; field selectors on pods and events", async () => {
  const list = await get("/api/v1/pods?fieldSelector=spec.nodeName%3Dworker31.cyh.cloud,metadata.namespace!%3Dkube-system");
  assert.equal(list.json.kind, "PodList");
  assert.deepEqual(list.json.items.map((p: { metadata: { name: string } }) => p.metadata.name), ["test", "web2"]);
  const pod = await get("/api/v1/namespaces/web/pods/waiting");
  assert.equal(pod.json.status.phase, "Pending");
  const events = await get("/api/v1/namespaces/web/events?fieldSelector=involvedObject.name%3Dwaiting,reason%3DFailedScheduling");
  assert.equal(events.json.items.length, 1);
  assert.match(events.json.items[0].message, /^0\/3 nodes are available/);
});

test("metrics.k8s.io: lists with label and field selectors, single objects, Table columns", async () => {
  const cp = await get("/apis/metrics.k8s.io/v1beta1/nodes?labelSelector=node-role.kubernetes.io%2Fcontrol-plane");
  // 125m declared and baseline, plus the little datapath work of the idle network (BGP keepalives).
  assert.deepEqual(cp.json.items.map((m: { metadata: { name: string } }) => m.metadata.name), ["master30.cyh.cloud"]);
  assert.match(cp.json.items[0].usage.cpu, /^125\d{6}n$/);
  const one = await get("/apis/metrics.k8s.io/v1beta1/namespaces/kube-system/pods/etcd-master.cyh.cloud");
  assert.deepEqual([one.json.kind, one.json.window, one.json.containers], ["PodMetrics", "15s", [{ name: "etcd", usage: { cpu: "16m", memory: "54Mi" } }]]);
  const named = await get("/apis/metrics.k8s.io/v1beta1/pods?fieldSelector=metadata.name%3Dweb1");
  assert.deepEqual(named.json.items.map((m: { metadata: { namespace: string } }) => m.metadata.namespace), ["web"]);
  const table = await get("/apis/metrics.k8s.io/v1beta1/nodes", TABLE);
  assert.deepEqual(table.json.columnDefinitions.map((c: { name: string }) => c.name), ["Name", "Cpu", "Memory", "Window"]);
  const cells = table.json.rows[0].cells as string[];
  assert.deepEqual([cells[0], cells[3]], ["master30.cyh.cloud", "15s"]);
  assert.match(cells[1]!, /^125\d{6}n$/);
  // 1324Mi declared and baseline plus two conntrack entries (its BGP sessions to the workers) of 320 bytes.
  assert.equal(cells[2], String(1324 * 1024 * 1024 + 2 * 320));
});
