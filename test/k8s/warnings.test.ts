// Nothing is silently ignored: unknown fields, unsupported kinds and fields, and other
// surprises are warnings, listed once each; the objects themselves are still accepted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadText } from "../../src/k8s/load.js";
import { at, fmt } from "./helpers.js";

const F = "t.yaml";
const pod = (name: string, container: string, spec = ""): string =>
  `---\napiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  containers: [${container}]\n${spec}`;

test("an unknown field is a warning at its key, and is dropped as the API server drops it", () => {
  const text = pod("p", "{name: c, image: nginx, imagePullPolcy: Always}");
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(fmt(r.warnings), [
    `${F}:${at(text, "imagePullPolcy")}: Pod default/p: spec.containers[0].imagePullPolcy: unknown field "imagePullPolcy" (ignored, as the API server does)`,
  ]);
  assert.equal(r.objects.length, 1);
  const c = (r.objects[0]!.object as unknown as { spec: { containers: Record<string, unknown>[] } }).spec.containers[0]!;
  assert.equal("imagePullPolcy" in c, false);
});

test("the same unknown field in many places is listed once, with a count", () => {
  const text = [1, 2, 3].map((i) => pod(`p${i}`, "{name: c, image: nginx, imagePullPolcy: Always}")).join("");
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.warnings), [
    `${F}:${at(text, "imagePullPolcy")}: Pod default/p1: spec.containers[0].imagePullPolcy: unknown field "imagePullPolcy" (ignored, as the API server does) (and 2 more like it)`,
  ]);
  assert.equal(r.objects.length, 3);
});

test("an unsupported kind is one warning however many objects it has; a CRD kind too", () => {
  const secret = (n: string): string => `---\napiVersion: v1\nkind: Secret\nmetadata: {name: ${n}}\ndata: {a: Yg==}\n`;
  const calico = "---\napiVersion: projectcalico.org/v3\nkind: NetworkPolicy\nmetadata: {name: x}\nspec: {}\n";
  const text = secret("a") + secret("b") + calico;
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(fmt(r.warnings), [
    `${F}:2:1: Secret default/a: kind Secret (v1, core) is not supported by cnisim; ignored (and 1 more like it)`,
    `${F}:${at(text, "apiVersion: projectcalico")}: NetworkPolicy default/x: kind NetworkPolicy (projectcalico.org/v3) is not supported by cnisim; ignored`,
  ]);
  assert.equal(r.objects.length, 0);
});

test("a valid field cnisim does not model is a warning and is dropped", () => {
  const text = pod("p", "{name: c, image: nginx}", "  schedulingGates: [{name: wait}]\n");
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.warnings), [
    `${F}:${at(text, "[{name: wait")}: Pod default/p: spec.schedulingGates: not supported by cnisim: scheduling gates are not modelled: the pod is scheduled as if it had none; ignored`,
  ]);
  assert.equal((r.objects[0]!.object as unknown as { spec: Record<string, unknown> }).spec["schedulingGates"], undefined);
});

test("a namespace on a cluster-scoped object is ignored with a warning", () => {
  const text = "apiVersion: v1\nkind: Node\nmetadata: {name: n1, namespace: web}\n";
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.warnings), [`${F}:${at(text, "web")}: Node n1: metadata.namespace: ignored: Node is cluster-scoped`]);
  assert.equal(r.objects[0]!.object.metadata.namespace, undefined);
});

test("surprising but valid input is named: missing podSelector, LoadBalancer, unknown PriorityClass", () => {
  const np = "---\napiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata: {name: x}\nspec: {policyTypes: [Ingress]}\n";
  const lb = "---\napiVersion: v1\nkind: Service\nmetadata: {name: lb}\nspec: {type: LoadBalancer, ports: [{port: 80}]}\n";
  const pc = pod("p", "{name: c, image: nginx}", "  priorityClassName: high\n");
  const text = np + lb + pc;
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(fmt(r.warnings), [
    `${F}:${at(text, "{policyTypes")}: NetworkPolicy default/x: spec.podSelector: not given: an empty selector (every pod in the namespace) is used, as the API server does`,
    `${F}:${at(text, "LoadBalancer")}: Service default/lb: spec.type: LoadBalancer services behave as NodePort services in cnisim (there is no load balancer)`,
    `${F}:${at(text, "high")}: Pod default/p: spec.priorityClassName: PriorityClass "high" is not modelled; priority 0 is used`,
  ]);
  assert.equal(r.objects.length, 3);
});

test("objects in a namespace nobody declared: one warning per namespace", () => {
  const text = pod("a", "{name: c, image: nginx}").replace("{name: a}", "{name: a, namespace: shop}") + pod("b", "{name: c, image: nginx}").replace("{name: b}", "{name: b, namespace: shop}");
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.warnings), [
    `${F}:${at(text, "shop")}: Pod shop/a: metadata.namespace: namespace "shop" is not defined in these files; it is created implicitly (an API server would answer: namespaces "shop" not found)`,
  ]);
  assert.equal(r.objects.length, 2);
});

test("a pod bound to a node the cluster does not have, and an oversize pod MTU, are warnings", () => {
  const cluster =
    "apiVersion: cnisim.io/v1alpha1\nkind: Cluster\nmetadata: {name: c}\nspec:\n  underlay: {subnet: 10.0.0.0/24}\n  nodes: [{name: n1, ip: 10.0.0.11}]\n  cni: {plugin: flannel, mtu: 1500}\n";
  const text = cluster + pod("p", "{name: c, image: nginx}", "  nodeName: n2\n");
  const r = loadText(text, F);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(fmt(r.warnings), [
    `${F}:${at(text, "1500")}: Cluster c: spec.cni.mtu: larger than the link MTU minus encapsulation (1450): large packets will need fragmentation`,
    `${F}:${at(text, "n2")}: Pod default/p: spec.nodeName: node "n2" does not exist: the pod will never run`,
  ]);
});
