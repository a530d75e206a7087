// Service address allocation as the API server does it: band offsets (KEP-3070 formula), dynamic
// picks in the upper band from the seeded RNG, honoured requests, conflicts and out-of-range values
// with the API server's wording, shared NodePorts, rollback on failure, and store integration.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ObjectStore } from "../../src/k8s/index.js";
import { ClusterIpAllocator, NodePortAllocator, rangeOffset, ServiceAllocator } from "../../src/kubeproxy/index.js";
import { SeededRng } from "../../src/util/rng.js";
import { parseIPv4 } from "../../src/util/ip.js";
import { unwrap } from "../../src/util/result.js";
import { serviceObject } from "./objects.js";

const seedLab = (seed = 1): ServiceAllocator => unwrap(ServiceAllocator.create({ serviceCIDR: "10.96.0.0/12", nodePortRange: { min: 30000, max: 32767 } }, new SeededRng(seed)));
const ipNum = (t: string): number => parseIPv4(t)!;

test("band offsets: min(max(16, size/step), max), 0 for tiny ranges (calculateRangeOffset)", () => {
  assert.equal(rangeOffset(2 ** 20, 16, 256, 16), 256, "/12 service CIDR");
  assert.equal(rangeOffset(256, 16, 256, 16), 16, "/24");
  assert.equal(rangeOffset(2 ** 12, 16, 256, 16), 256, "/20");
  assert.equal(rangeOffset(1024, 16, 256, 16), 64, "/22");
  assert.equal(rangeOffset(16, 16, 256, 16), 0, "/28 has no band");
  assert.equal(rangeOffset(2768, 16, 128, 32), 86, "NodePorts 30000-32767");
  assert.equal(rangeOffset(100, 16, 128, 32), 16);
  assert.equal(seedLab().ips.staticBand, 256);
  assert.equal(seedLab().ports.staticBand, 86);
});

test("dynamic ClusterIPs come from the upper band, deterministically per seed", () => {
  const pick = (seed: number): string[] => {
    const a = unwrap(ClusterIpAllocator.create("10.96.0.0/12", new SeededRng(seed)));
    return Array.from({ length: 50 }, () => unwrap(a.allocateNext()));
  };
  const first = pick(7);
  assert.deepEqual(pick(7), first, "same seed, same addresses");
  assert.notDeepEqual(pick(8), first);
  assert.equal(new Set(first).size, 50);
  for (const ip of first) {
    const n = ipNum(ip);
    assert.ok(n >= ipNum("10.96.1.1") && n <= ipNum("10.111.255.254"), `${ip} beyond the 256-address band, before broadcast`);
  }
});

test("a full upper band falls back to the lower one; a full range says so", () => {
  // /27: 32 addresses, 30 usable, band of 16 (offset 16 -> 10.0.0.17 is the first dynamic one).
  const a = unwrap(ClusterIpAllocator.create("10.0.0.0/27", new SeededRng(3)));
  const upper = Array.from({ length: 14 }, () => ipNum(unwrap(a.allocateNext())));
  assert.ok(upper.every((n) => n >= ipNum("10.0.0.17") && n <= ipNum("10.0.0.30")));
  const lower = Array.from({ length: 16 }, () => ipNum(unwrap(a.allocateNext())));
  assert.ok(lower.every((n) => n >= ipNum("10.0.0.1") && n <= ipNum("10.0.0.16")));
  assert.deepEqual(a.allocateNext(), { ok: false, error: "range is full" });
});

test("requested ClusterIPs: honoured, conflicts and out-of-range values rejected in the API server's words", () => {
  const alloc = seedLab();
  const a = unwrap(alloc.admit(serviceObject("kube-dns", { namespace: "kube-system", clusterIP: "10.96.0.10" })));
  assert.deepEqual([a.spec!.clusterIP, a.spec!.clusterIPs], ["10.96.0.10", ["10.96.0.10"]]);
  const dup = alloc.admit(serviceObject("b", { clusterIP: "10.96.0.10" }));
  assert.deepEqual(dup.ok ? null : dup.error, {
    reason: "Invalid",
    service: "default/b",
    field: "spec.clusterIPs",
    message: 'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
  });
  for (const bad of ["10.0.0.1", "10.96.0.0", "10.111.255.255"]) {
    const r = alloc.admit(serviceObject("c", { clusterIP: bad }));
    assert.equal(r.ok ? "" : r.error.message, `Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"${bad}"}: failed to allocate IP ${bad}: the provided IP (${bad}) is not in the valid range. The range of valid IPs is 10.96.0.0/12`);
  }
  const headless = unwrap(alloc.admit(serviceObject("h", { clusterIP: "None" })));
  assert.equal(headless.spec!.clusterIP, "None");
  assert.equal(alloc.ips.used, 1, "only kube-dns holds an address");
});

test("NodePorts: requested, random, shared by ports with the same number, errors and rollback", () => {
  const alloc = seedLab(5);
  const svc = (name: string, nodePort?: number) =>
    serviceObject(name, { type: "NodePort", ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080, ...(nodePort !== undefined ? { nodePort } : {}) }] });
  const a = unwrap(alloc.admit(svc("a", 30080)));
  assert.equal(a.spec!.ports![0]!.nodePort, 30080);
  const dyn = unwrap(alloc.admit(svc("dyn")));
  const p = dyn.spec!.ports![0]!.nodePort!;
  assert.ok(p >= 30000 + 86 && p <= 32767, `random port ${p} above the static band`);
  const conflict = alloc.admit(svc("b", 30080));
  assert.equal(conflict.ok ? "" : conflict.error.message, 'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated');
  const range = alloc.admit(svc("webapp", 8080));
  assert.equal(range.ok ? "" : range.error.message, 'Service "webapp" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767');
  const ipsBefore = alloc.ips.used;
  assert.equal(alloc.admit(svc("c", 30080)).ok, false);
  assert.equal(alloc.ips.used, ipsBefore, "the ClusterIP taken for a rejected service is given back");

  const dns = unwrap(
    alloc.admit(
      serviceObject("dns", {
        type: "NodePort",
        ports: [
          { name: "dns-udp", port: 53, protocol: "UDP", targetPort: 53 },
          { name: "dns-tcp", port: 53, protocol: "TCP", targetPort: 53 },
          { name: "metrics", port: 9153, protocol: "TCP", targetPort: 9153 },
        ],
      }),
    ),
  );
  const [u, t, m] = dns.spec!.ports!.map((x) => x.nodePort);
  assert.equal(u, t, "UDP and TCP 53 share one NodePort");
  assert.notEqual(u, m);

  alloc.release("default", "a");
  assert.equal(unwrap(alloc.admit(svc("d", 30080))).spec!.ports![0]!.nodePort, 30080, "released port can be requested again");
});

test("LoadBalancer with externalTrafficPolicy Local gets a healthCheckNodePort", () => {
  const alloc = seedLab(2);
  const s = serviceObject("lb", { type: "LoadBalancer", externalTrafficPolicy: "Local" });
  const got = unwrap(alloc.admit(s));
  const hc = got.spec!.healthCheckNodePort!;
  assert.ok(hc >= 30000 && hc <= 32767);
  assert.notEqual(hc, got.spec!.ports![0]!.nodePort);
  assert.equal(alloc.ports.used, 2);
});

test("store: existing services are allocated in creation order, rejected ones removed; later ones followed", () => {
  const store = new ObjectStore();
  unwrap(store.add(serviceObject("web1", { namespace: "web", type: "NodePort", clusterIP: "10.103.36.143", ports: [{ port: 80, protocol: "TCP", targetPort: 80, nodePort: 30790 }] })));
  unwrap(store.add(serviceObject("web2", { namespace: "web", type: "NodePort", ports: [{ port: 80, protocol: "TCP", targetPort: 80 }] })));
  unwrap(store.add(serviceObject("clash", { namespace: "web", clusterIP: "10.103.36.143" })));
  const alloc = seedLab(9);
  const errors = alloc.allocateStore(store);
  assert.deepEqual(errors.map((e) => e.service), ["web/clash"]);
  assert.equal(store.get("Service", "web", "clash"), undefined);
  const web1 = store.get("Service", "web", "web1")!;
  assert.deepEqual([web1.spec!.clusterIP, web1.spec!.ports![0]!.nodePort], ["10.103.36.143", 30790]);
  const web2 = store.get("Service", "web", "web2")!;
  assert.ok(web2.spec!.clusterIP !== undefined && web2.spec!.ports![0]!.nodePort! > 0);

  const rejected: string[] = [];
  const stop = alloc.follow(store, (e) => rejected.push(e.message));
  unwrap(store.add(serviceObject("later", { namespace: "web" })));
  const later = store.get("Service", "web", "later")!;
  assert.ok(alloc.ips.has(later.spec!.clusterIP!), "allocated on creation");
  unwrap(store.add(serviceObject("dup", { namespace: "web", type: "NodePort", ports: [{ port: 80, protocol: "TCP", targetPort: 80, nodePort: 30790 }] })));
  assert.equal(store.get("Service", "web", "dup"), undefined, "a conflicting create does not stay");
  assert.equal(rejected.length, 1);
  unwrap(store.delete("Service", "web", "later"));
  assert.equal(alloc.ips.has(later.spec!.clusterIP!), false, "released on delete");
  stop();
});

test("NodePortAllocator alone: bounds and release", () => {
  const a = new NodePortAllocator(30000, 30015, new SeededRng(1));
  assert.equal(a.staticBand, 0, "16 ports: no band");
  const all = Array.from({ length: 16 }, () => unwrap(a.allocateNext())).sort((x, y) => x - y);
  assert.deepEqual(all, Array.from({ length: 16 }, (_, i) => 30000 + i));
  assert.deepEqual(a.allocateNext(), { ok: false, error: "range is full" });
  a.release(30007);
  assert.equal(unwrap(a.allocateNext()), 30007);
});
