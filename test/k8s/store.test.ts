// ObjectStore: revisions, resourceVersion, events in order, typed lists, API-server error texts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { compileSelector } from "../../src/k8s/selector.js";
import { ObjectStore, StoreErrorCode, type StoreEvent } from "../../src/k8s/store.js";
import type { KubeObject } from "../../src/k8s/types.js";

const pod = (ns: string, name: string, labels: Record<string, string> = {}, image = "nginx"): KubeObject<"Pod"> => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns, labels },
  spec: { containers: [{ name: "c", image }] },
});
const node = (name: string): KubeObject<"Node"> => ({ apiVersion: "v1", kind: "Node", metadata: { name } });
const summary = (e: StoreEvent): string =>
  `${e.revision} ${e.type} ${e.kind} ${(e.new ?? e.old)!.metadata.namespace ?? ""}/${(e.new ?? e.old)!.metadata.name} rv=${e.old?.metadata.resourceVersion ?? "-"}->${e.new?.metadata.resourceVersion ?? "-"}`;

test("every change takes the next revision, stamped as metadata.resourceVersion", () => {
  const s = new ObjectStore();
  assert.equal(s.revision, 0);
  const a = s.add(pod("web", "a"));
  const n = s.add(node("n1"));
  assert.ok(a.ok && n.ok);
  assert.deepEqual([a.value.metadata.resourceVersion, n.value.metadata.resourceVersion, s.revision], ["1", "2", 2]);
  assert.equal(a.value.metadata.generation, 1);
  assert.match(a.value.metadata.uid!, /^00000000-0000-4000-8000-000000000001$/);
  const u = s.modify("Pod", "web", "a", (p) => {
    p.metadata.labels = { run: "a" };
  });
  assert.ok(u.ok);
  assert.equal(u.value.metadata.resourceVersion, "3");
  assert.equal(u.value.metadata.generation, 1, "a label change is not a spec change");
  const v = s.modify("Pod", "web", "a", (p) => {
    p.spec!.containers[0]!.image = "nginx:1.27";
  });
  assert.ok(v.ok);
  assert.deepEqual([v.value.metadata.resourceVersion, v.value.metadata.generation, v.value.metadata.uid], ["4", 2, a.value.metadata.uid]);
  assert.ok(s.delete("Pod", "web", "a").ok);
  assert.equal(s.revision, 5);
});

test("listeners see added, modified and deleted with old and new objects, in revision order", () => {
  const s = new ObjectStore();
  const seen: string[] = [];
  const pods: string[] = [];
  s.watch((e) => seen.push(summary(e)));
  const stop = s.watch((e) => pods.push(summary(e)), ["Pod"]);
  s.add(pod("web", "a"));
  s.add(node("n1"));
  s.modify("Pod", "web", "a", (p) => {
    p.metadata.labels = { run: "x" };
  });
  s.delete("Pod", "web", "a");
  stop();
  s.add(pod("web", "b"));
  assert.deepEqual(seen, [
    "1 added Pod web/a rv=-->1",
    "2 added Node /n1 rv=-->2",
    "3 modified Pod web/a rv=1->3",
    "4 deleted Pod web/a rv=3->-",
    "5 added Pod web/b rv=-->5",
  ]);
  assert.deepEqual(pods, ["1 added Pod web/a rv=-->1", "3 modified Pod web/a rv=1->3", "4 deleted Pod web/a rv=3->-"]);
});

test("a change made by a listener is delivered after the current event reached every listener", () => {
  const s = new ObjectStore();
  const log: string[] = [];
  s.watch((e) => {
    log.push(`controller ${summary(e)}`);
    if (e.kind === "Node" && e.type === "added") s.add(pod("kube-system", `ds-${e.new!.metadata.name}`));
  });
  s.watch((e) => log.push(`observer ${summary(e)}`));
  s.add(node("n1"));
  assert.deepEqual(log, [
    "controller 1 added Node /n1 rv=-->1",
    "observer 1 added Node /n1 rv=-->1",
    "controller 2 added Pod kube-system/ds-n1 rv=-->2",
    "observer 2 added Pod kube-system/ds-n1 rv=-->2",
  ]);
});

test("an update that changes nothing keeps the revision and emits nothing", () => {
  const s = new ObjectStore();
  const events: StoreEvent[] = [];
  s.add(pod("web", "a", { run: "a" }));
  s.watch((e) => events.push(e));
  const same = { ...pod("web", "a"), metadata: { labels: { run: "a" }, namespace: "web", name: "a" } };
  const r = s.update(same);
  assert.ok(r.ok);
  assert.equal(r.value.metadata.resourceVersion, "1");
  assert.equal(events.length, 0);
  assert.equal(s.revision, 1);
});

test("errors carry the API server's wording", () => {
  const s = new ObjectStore();
  s.add(pod("web", "a"));
  const dup = s.add(pod("web", "a"));
  assert.ok(!dup.ok);
  assert.deepEqual([dup.error.code, dup.error.message], [StoreErrorCode.ALREADY_EXISTS, 'pods "a" already exists']);
  const missing = s.delete("Deployment", "web", "x");
  assert.ok(!missing.ok && missing.error.message === 'deployments.apps "x" not found');
  s.modify("Pod", "web", "a", (p) => {
    p.metadata.labels = { v: "2" };
  });
  const stale = s.update({ ...pod("web", "a"), metadata: { name: "a", namespace: "web", resourceVersion: "1" } });
  assert.ok(!stale.ok);
  assert.equal(stale.error.code, StoreErrorCode.CONFLICT);
  assert.equal(stale.error.message, 'Operation cannot be fulfilled on pods "a": the object has been modified; please apply your changes to the latest version and try again');
});

test("lists are sorted by namespace then name and filter by namespace, labels and predicate", () => {
  const s = new ObjectStore();
  for (const [ns, name, run] of [["web", "web2", "web2"], ["cyh", "test", "test"], ["web", "test", "test"], ["web", "web1", "web1"]] as const) {
    s.add(pod(ns, name, { run }));
  }
  const names = (list: KubeObject<"Pod">[]): string[] => list.map((p) => `${p.metadata.namespace}/${p.metadata.name}`);
  assert.deepEqual(names(s.list("Pod")), ["cyh/test", "web/test", "web/web1", "web/web2"]);
  assert.deepEqual(names(s.list("Pod", { namespace: "web" })), ["web/test", "web/web1", "web/web2"]);
  const sel = compileSelector({ matchExpressions: [{ key: "run", operator: "In", values: ["test", "web1"] }] });
  assert.deepEqual(names(s.list("Pod", { labels: (l) => sel.matches(l) })), ["cyh/test", "web/test", "web/web1"]);
  assert.deepEqual(names(s.list("Pod", { where: (p) => p.metadata.name.startsWith("web") })), ["web/web1", "web/web2"]);
  assert.equal(s.count("Pod"), 4);
  assert.deepEqual(s.list("Service"), []);
});

test("stored objects are frozen copies; cluster-scoped kinds ignore a namespace", () => {
  const s = new ObjectStore({ timestamp: () => "2026-07-10T14:09:40Z" });
  const input = pod("web", "a");
  const stored = s.add(input);
  assert.ok(stored.ok);
  input.metadata.name = "changed";
  assert.equal(s.get("Pod", "web", "a")?.metadata.name, "a");
  assert.throws(() => {
    (stored.value.metadata as { name: string }).name = "x";
  }, TypeError);
  assert.equal(stored.value.metadata.creationTimestamp, "2026-07-10T14:09:40Z");
  const n = s.add({ ...node("n1"), metadata: { name: "n1", namespace: "web" } });
  assert.ok(n.ok);
  assert.equal(n.value.metadata.namespace, undefined);
  assert.equal(s.get("Node", undefined, "n1")?.metadata.name, "n1");
  assert.equal(s.get("Node", "anything", "n1")?.metadata.name, "n1");
});

test("apply adds, then updates", () => {
  const s = new ObjectStore();
  const types: string[] = [];
  s.watch((e) => types.push(e.type));
  assert.ok(s.apply(pod("web", "a")).ok);
  assert.ok(s.apply(pod("web", "a", {}, "busybox")).ok);
  assert.deepEqual(types, ["added", "modified"]);
  assert.equal(s.get("Pod", "web", "a")?.spec?.containers[0]?.image, "busybox");
});
