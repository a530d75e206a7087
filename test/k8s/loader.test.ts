// Loading mechanics: documents, folders, Lists, namespaces, YAML 1.1 scalars as kubectl reads
// them, anchors, and the API server's defaults.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deployment } from "kubernetes-types/apps/v1.js";
import type { Namespace, Pod, Service } from "kubernetes-types/core/v1.js";
import type { NetworkPolicy } from "kubernetes-types/networking/v1.js";
import { policyTypesGiven } from "../../src/k8s/defaults.js";
import { loadFiles, loadText, type LoadResult } from "../../src/k8s/load.js";
import { at, fmt } from "./helpers.js";

const F = "t.yaml";
const only = <T>(r: LoadResult, kind: string, name: string): T => {
  const o = r.objects.find((x) => x.object.kind === kind && x.object.metadata.name === name);
  assert.ok(o, `${kind} ${name} loaded`);
  return o.object as unknown as T;
};

test("multi-document text: empty documents are skipped, sources keep file, line, column and document number", () => {
  // Documents: 1 is the empty one the leading comment and first "---" open, 2 holds a, 3 only a comment, 4 holds b.
  const text = "# lead comment\n---\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n# only a comment\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n";
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(
    r.objects.map((o) => [o.object.metadata.name, o.source]),
    [
      ["a", { file: F, line: 4, col: 1, document: 2 }],
      ["b", { file: F, line: 10, col: 1, document: 4 }],
    ],
  );
});

test("a v1 List contributes its items; an item's error names the item", () => {
  const text = [
    "apiVersion: v1",
    "kind: List",
    "items:",
    "- {apiVersion: v1, kind: Namespace, metadata: {name: a}}",
    "- {apiVersion: v1, kind: Namespace, metadata: {labels: {}}}",
  ].join("\n");
  const r = loadText(text, F);
  assert.deepEqual(r.objects.map((o) => o.object.metadata.name), ["a"]);
  assert.deepEqual(fmt(r.errors), [`${F}:${at(text, "{labels")}: Namespace in document 1, items[1]: metadata.name: required value`]);
});

test("folders contribute their .yaml/.yml/.json files sorted, not subfolders or other files", async () => {
  const dir = await mkdtemp(join(tmpdir(), "cnisim-k8s-"));
  try {
    await writeFile(join(dir, "b.yml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n");
    await writeFile(join(dir, "a.json"), JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "a" } }));
    await writeFile(join(dir, "c.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: c}\n");
    await writeFile(join(dir, "notes.txt"), "not yaml");
    await mkdir(join(dir, "sub"));
    await writeFile(join(dir, "sub", "d.yaml"), "apiVersion: v1\nkind: Namespace\nmetadata: {name: d}\n");
    await mkdir(join(dir, "empty"));
    const r = await loadFiles([dir, join(dir, "sub", "d.yaml"), join(dir, "missing.yaml"), join(dir, "empty")]);
    assert.deepEqual(r.objects.map((o) => o.object.metadata.name), ["a", "b", "c", "d"]);
    assert.equal(r.errors.length, 1);
    assert.match(fmt(r.errors)[0]!, /missing\.yaml:0:0: file: cannot read: ENOENT/);
    assert.deepEqual(fmt(r.warnings), [`${join(dir, "empty")}:0:0: folder: no .yaml, .yml or .json files here`]);
  } finally {
    await rm(dir, { recursive: true });
  }
});

test("the namespace option plays kubectl's context namespace; explicit namespaces win", () => {
  const text = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: x}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, namespace: default}\nspec: {containers: [{name: c, image: x}]}\n";
  const r = loadText(text, F, { namespace: "kube-system" });
  assert.deepEqual(r.objects.map((o) => `${o.object.metadata.namespace}/${o.object.metadata.name}`), ["kube-system/a", "default/b"]);
});

test("scalars are read as kubectl reads YAML (go-yaml v2, YAML 1.1): yes and n are booleans, 1:20 is text", () => {
  const text = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, labels: {enabled: yes, tier: n}}\n";
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), [
    `${F}:${at(text, "yes")}: Namespace a: metadata.labels[enabled]: must be a string, not a boolean`,
    `${F}:${at(text, "n}}")}: Namespace a: metadata.labels[tier]: must be a string, not a boolean`,
  ]);
  const ok = loadText("apiVersion: v1\nkind: Namespace\nmetadata: {name: a, annotations: {at: 1:20, mode: '0777'}}\n", F);
  assert.deepEqual((ok.objects[0]!.object as Namespace).metadata!.annotations, { at: "1:20", mode: "0777" });
  const octalText = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a, annotations: {mode: 0777}}\n";
  assert.deepEqual(fmt(loadText(octalText, F).errors), [`${F}:${at(octalText, "0777")}: Namespace a: metadata.annotations[mode]: must be a string, not an integer`]);
});

test("anchors and merge keys resolve, and errors point into the anchored node", () => {
  const text = [
    "apiVersion: v1",
    "kind: Pod",
    "metadata: {name: p}",
    "spec:",
    "  containers:",
    "  - &base {name: a, image: nginx, ports: [{containerPort: 99999}]}",
    "  - {<<: *base, name: b}",
  ].join("\n");
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), [
    `${F}:${at(text, "99999")}: Pod default/p: spec.containers[0].ports[0].containerPort: must be between 1 and 65535, inclusive`,
    `${F}:${at(text, "99999")}: Pod default/p: spec.containers[1].ports[0].containerPort: must be between 1 and 65535, inclusive`,
  ]);
  const fixed = loadText(text.replace("99999", "8080"), F);
  const pod = only<Pod>(fixed, "Pod", "p");
  assert.deepEqual(pod.spec!.containers.map((c) => [c.name, c.image, c.ports?.[0]?.containerPort]), [
    ["a", "nginx", 8080],
    ["b", "nginx", 8080],
  ]);
});

test("Service defaults: ClusterIP, TCP, targetPort = port, no session affinity; NodePort adds externalTrafficPolicy Cluster", () => {
  const text = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}, {name: x, port: 53, protocol: UDP, targetPort: dns, name: y}]}\n".replace(", name: y", "");
  const svc = only<Service>(loadText(text.replace("{port: 80}", "{name: w, port: 80}"), F), "Service", "s");
  assert.equal(svc.spec!.type, "ClusterIP");
  assert.equal(svc.spec!.sessionAffinity, "None");
  assert.equal(svc.spec!.externalTrafficPolicy, undefined);
  assert.deepEqual(svc.spec!.ports, [
    { name: "w", port: 80, protocol: "TCP", targetPort: 80 },
    { name: "x", port: 53, protocol: "UDP", targetPort: "dns" },
  ]);
  const np = only<Service>(loadText("apiVersion: v1\nkind: Service\nmetadata: {name: np}\nspec: {type: NodePort, sessionAffinity: ClientIP, ports: [{port: 80}]}\n", F), "Service", "np");
  assert.equal(np.spec!.externalTrafficPolicy, "Cluster");
  assert.equal(np.spec!.sessionAffinityConfig?.clientIP?.timeoutSeconds, 10800);
});

test("Deployment defaults: 1 replica, RollingUpdate 25%/25%, history 10, deadline 600, pod template defaults", () => {
  const text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c, image: nginx, ports: [{containerPort: 80}]}]}\n";
  const dep = only<Deployment>(loadText(text, F), "Deployment", "d");
  assert.equal(dep.spec!.replicas, 1);
  assert.deepEqual(dep.spec!.strategy, { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } });
  assert.equal(dep.spec!.revisionHistoryLimit, 10);
  assert.equal(dep.spec!.progressDeadlineSeconds, 600);
  const spec = dep.spec!.template.spec!;
  assert.equal(spec.restartPolicy, "Always");
  assert.equal(spec.dnsPolicy, "ClusterFirst");
  assert.equal(spec.schedulerName, "default-scheduler");
  assert.equal(spec.terminationGracePeriodSeconds, 30);
  assert.equal(spec.containers[0]!.imagePullPolicy, "Always");
  assert.equal(spec.containers[0]!.ports![0]!.protocol, "TCP");
  assert.equal(spec.tolerations, undefined, "admission tolerations are added to pods, not templates");
});

test("Pod defaults and admission: requests from limits, QoS class, priority, not-ready/unreachable tolerations", () => {
  const pods = [
    "{name: g, image: nginx:1.25, resources: {limits: {cpu: 500m, memory: 128Mi}}}",
    "{name: b, image: nginx:latest, resources: {requests: {cpu: 100m}}}",
    "{name: e, image: registry.local:5000/nginx}",
  ];
  const text = pods
    .map((c, i) => `---\napiVersion: v1\nkind: Pod\nmetadata: {name: p${i}}\nspec: {priorityClassName: system-node-critical, containers: [${c}]}\n`)
    .join("")
    .concat("---\napiVersion: v1\nkind: Pod\nmetadata: {name: t}\nspec:\n  containers: [{name: c, image: x}]\n  tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 6000}]\n");
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), []);
  const [g, b, e, t] = ["p0", "p1", "p2", "t"].map((n) => only<Pod>(r, "Pod", n));
  assert.deepEqual(g!.spec!.containers[0]!.resources!.requests, { cpu: "500m", memory: "128Mi" });
  assert.deepEqual([g!.status!.qosClass, b!.status!.qosClass, e!.status!.qosClass], ["Guaranteed", "Burstable", "BestEffort"]);
  assert.deepEqual([g, b, e].map((p) => p!.spec!.containers[0]!.imagePullPolicy), ["IfNotPresent", "Always", "Always"]);
  assert.equal(g!.spec!.priority, 2000001000);
  assert.equal(t!.spec!.priority, 0);
  assert.equal(t!.status!.phase, "Pending");
  assert.deepEqual(t!.spec!.tolerations, [
    { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 6000 },
    { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
  ]);
});

test("NetworkPolicy: ports default to TCP, policyTypes stays as written (the policy layer defaults it)", () => {
  const text = "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: a}\nspec: {podSelector: {}, ingress: [{ports: [{port: 80}]}]}\n---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: b}\nspec: {podSelector: {}, policyTypes: [Egress]}\n";
  const r = loadText(text, F);
  const a = only<NetworkPolicy>(r, "NetworkPolicy", "a");
  const b = only<NetworkPolicy>(r, "NetworkPolicy", "b");
  assert.deepEqual(a.spec!.ingress![0]!.ports, [{ port: 80, protocol: "TCP" }]);
  assert.equal(a.spec!.policyTypes, undefined);
  assert.deepEqual([policyTypesGiven(a), policyTypesGiven(b)], [false, true]);
});

test("Namespaces get the kubernetes.io/metadata.name label the API server sets", () => {
  const ns = only<Namespace>(loadText("apiVersion: v1\nkind: Namespace\nmetadata: {name: cyh, labels: {project: myproject}}\n", F), "Namespace", "cyh");
  assert.deepEqual(ns.metadata!.labels, { project: "myproject", "kubernetes.io/metadata.name": "cyh" });
  assert.equal(ns.status!.phase, "Active");
});

test("a null list entry is the element's zero value, so its required fields are reported", () => {
  const text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: x}\n  -\n";
  assert.deepEqual(fmt(loadText(text, F).errors), [
    `${F}:7:4: Pod default/p: spec.containers[1].name: required value`,
    `${F}:7:4: Pod default/p: spec.containers[1].image: required value`,
  ]);
  const list = "apiVersion: v1\nkind: List\nitems: {a: b}\n";
  assert.deepEqual(fmt(loadText(list, F).errors), [`${F}:3:8: List in document 1: items: must be a list`]);
});
