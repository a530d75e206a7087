// Endpoints and EndpointSlices derived from Services and Pods: readiness, addresses, terminating
// pods, publishNotReadyAddresses, named targetPorts resolved per pod, repacking into subsets, the
// controller following store changes, and mirroring for selectorless services.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ObjectStore } from "../../src/k8s/index.js";
import { buildEndpointsMap, deriveEndpoints, deriveEndpointSlices, EndpointsController } from "../../src/kubeproxy/index.js";
import { unwrap } from "../../src/util/result.js";
import { podObject, serviceObject } from "./objects.js";

const svc = serviceObject("web", { clusterIP: "10.96.0.50" });

test("Endpoints: ready pods in addresses, unready in notReadyAddresses, no IP / terminating / other labels left out", () => {
  const pods = [
    podObject("b", "10.244.1.10"),
    podObject("a", "10.244.1.9"),
    podObject("unready", "10.244.1.11", { ready: false }),
    podObject("noip", ""),
    podObject("dying", "10.244.1.12", { terminating: true }),
    podObject("other", "10.244.1.13", { labels: { app: "db" } }),
  ];
  const eps = deriveEndpoints(svc, pods)!.endpoints;
  assert.equal(eps.subsets?.length, 1);
  const ss = eps.subsets![0]!;
  assert.deepEqual(ss.addresses!.map((a) => a.ip), ["10.244.1.10", "10.244.1.9"], "sorted by IP text, as addrsByIPAndUID");
  assert.deepEqual(ss.notReadyAddresses!.map((a) => a.ip), ["10.244.1.11"]);
  assert.deepEqual(ss.ports, [{ name: "http", port: 8080, protocol: "TCP" }]);
  assert.deepEqual(ss.addresses![1]!.targetRef, { kind: "Pod", namespace: "default", name: "a", uid: "uid-a" });
  assert.equal(ss.addresses![0]!.nodeName, "node-a");

  const publish = deriveEndpoints(serviceObject("web", { publishNotReadyAddresses: true }), pods)!.endpoints;
  assert.deepEqual(publish.subsets![0]!.addresses!.map((a) => a.ip), ["10.244.1.10", "10.244.1.11", "10.244.1.12", "10.244.1.9"]);
  assert.equal(deriveEndpoints(serviceObject("x", { selector: null }), pods), null, "no selector: not managed");
});

test("named targetPort: resolved per pod; pods without the port are left out with a warning", () => {
  const named = serviceObject("web", { ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: "web" }] });
  const pods = [
    podObject("p1", "10.244.1.2", { ports: [{ name: "web", containerPort: 8080, protocol: "TCP" }] }),
    podObject("p2", "10.244.1.3", { ports: [{ name: "web", containerPort: 9090, protocol: "TCP" }] }),
    podObject("p3", "10.244.1.4", { ports: [{ name: "web", containerPort: 9090, protocol: "UDP" }] }),
  ];
  const d = deriveEndpoints(named, pods)!;
  assert.deepEqual(
    d.endpoints.subsets!.map((s) => [s.addresses!.map((a) => a.ip), s.ports!.map((p) => p.port)]),
    [
      [["10.244.1.2"], [8080]],
      [["10.244.1.3"], [9090]],
    ],
  );
  assert.equal(d.warnings.length, 1);
  assert.match(d.warnings[0]!, /Pod default\/p3: no TCP container port named "web"/);

  const slices = deriveEndpointSlices(named, pods)!.slices;
  const map = buildEndpointsMap(slices, "node-a");
  assert.deepEqual(
    map.get("default/web:http|tcp")!.map((e) => e.endpoint),
    ["10.244.1.2:8080", "10.244.1.3:9090"],
    "kube-proxy sees each pod on its own port",
  );
});

test("RepackSubsets: ports served by the same addresses share a subset", () => {
  const two = serviceObject("web", { ports: [{ name: "a", port: 80, protocol: "TCP", targetPort: "a" }, { name: "b", port: 81, protocol: "TCP", targetPort: 81 }] });
  const pods = [podObject("p1", "10.0.0.1", { ports: [{ name: "a", containerPort: 8080 }] }), podObject("p2", "10.0.0.2")];
  const subsets = deriveEndpoints(two, pods)!.endpoints.subsets!;
  assert.deepEqual(
    subsets.map((s) => [s.addresses!.map((a) => a.ip), s.ports!.map((p) => `${p.name}:${p.port}`)]),
    [
      [["10.0.0.1"], ["a:8080"]],
      [["10.0.0.1", "10.0.0.2"], ["b:81"]],
    ],
  );
});

test("EndpointSlices: conditions, terminating pods kept, placeholder when empty", () => {
  const pods = [podObject("a", "10.244.1.9"), podObject("unready", "10.244.1.11", { ready: false }), podObject("dying", "10.244.1.12", { terminating: true })];
  const [slice] = deriveEndpointSlices(svc, pods, new Map([["node-a", "zone-1"]]))!.slices;
  assert.deepEqual(
    slice!.endpoints.map((e) => [e.addresses[0], e.conditions]),
    [
      ["10.244.1.9", { ready: true, serving: true, terminating: false }],
      ["10.244.1.11", { ready: false, serving: false, terminating: false }],
      ["10.244.1.12", { ready: false, serving: true, terminating: true }],
    ],
  );
  assert.equal(slice!.endpoints[0]!.zone, "zone-1");
  assert.equal(slice!.metadata?.labels?.["kubernetes.io/service-name"], "web");
  assert.match(slice!.metadata!.name!, /^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  const empty = deriveEndpointSlices(svc, [])!.slices;
  assert.equal(empty.length, 1);
  assert.deepEqual([empty[0]!.endpoints, empty[0]!.ports], [[], []]);
  const many = Array.from({ length: 250 }, (_, i) => podObject(`p${i}`, `10.1.${i >> 8}.${i & 255}`));
  assert.deepEqual(deriveEndpointSlices(svc, many)!.slices.map((s) => s.endpoints.length), [100, 100, 50]);
});

test("controller: follows pods and services, writes Endpoints, tells listeners", () => {
  const store = new ObjectStore();
  unwrap(store.add(svc));
  const ctl = new EndpointsController(store);
  const heard: string[] = [];
  ctl.watch((ns, name) => heard.push(`${ns}/${name}`));
  ctl.start();
  assert.deepEqual(store.get("Endpoints", "default", "web")?.subsets ?? [], []);
  unwrap(store.add(podObject("a", "10.244.1.9", { ready: false })));
  assert.deepEqual(store.get("Endpoints", "default", "web")!.subsets![0]!.notReadyAddresses!.map((a) => a.ip), ["10.244.1.9"]);
  unwrap(store.modify("Pod", "default", "a", (p) => ((p as { status?: unknown }).status = { ...p.status, conditions: [{ type: "Ready", status: "True" }] })));
  assert.deepEqual(store.get("Endpoints", "default", "web")!.subsets![0]!.addresses!.map((a) => a.ip), ["10.244.1.9"]);
  assert.deepEqual(ctl.slicesFor("default", "web")[0]!.endpoints[0]!.conditions, { ready: true, serving: true, terminating: false });
  unwrap(store.add(podObject("db", "10.244.1.20", { labels: { app: "db" } })));
  const n = heard.length;
  assert.ok(n >= 2);
  unwrap(store.delete("Service", "default", "web"));
  assert.equal(store.get("Endpoints", "default", "web"), undefined, "Endpoints go with the service");
  assert.equal(ctl.list().length, 0);
  assert.equal(heard.length, n + 1);
});

test("selectorless service: slices mirrored from the user's Endpoints", () => {
  const store = new ObjectStore();
  unwrap(store.add(serviceObject("ext", { selector: null, clusterIP: "10.96.0.70", ports: [{ name: "db", port: 5432, protocol: "TCP", targetPort: 5432 }] })));
  const ctl = new EndpointsController(store);
  ctl.start();
  assert.equal(ctl.list().length, 0);
  unwrap(
    store.add({
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "ext", namespace: "default" },
      subsets: [{ addresses: [{ ip: "192.0.2.10" }], notReadyAddresses: [{ ip: "192.0.2.11" }], ports: [{ name: "db", port: 5432, protocol: "TCP" }] }],
    }),
  );
  const map = buildEndpointsMap(ctl.list(), "node-a");
  assert.deepEqual(map.get("default/ext:db|tcp")!.map((e) => [e.endpoint, e.ready]), [["192.0.2.10:5432", true], ["192.0.2.11:5432", false]]);
  assert.equal(ctl.list()[0]!.metadata!.labels!["endpointslice.kubernetes.io/managed-by"], "endpointslicemirroring-controller.k8s.io");
});
