// Kubernetes objects into policy world inputs: labels, addresses, named container ports.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { namespaceInputFromK8s, nodeInputFromK8s, podInputFromK8s } from "../../src/policy/from-k8s.js";

describe("from Kubernetes objects", () => {
  it("a scheduled pod with named ports", () => {
    const r = podInputFromK8s({
      metadata: { name: "web1", namespace: "web", labels: { run: "web1" } },
      spec: {
        nodeName: "worker32.cyh.cloud",
        containers: [
          { name: "nginx", ports: [{ name: "http", containerPort: 80 }, { containerPort: 9000, protocol: "UDP" }] },
          { name: "sidecar", ports: [{ name: "metrics", containerPort: 9090, protocol: "TCP" }] },
        ],
      },
      status: { podIP: "10.224.193.67" },
    });
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      namespace: "web",
      name: "web1",
      labels: { run: "web1" },
      ip: "10.224.193.67",
      node: "worker32.cyh.cloud",
      ports: [
        { name: "http", containerPort: 80, protocol: "TCP" },
        { containerPort: 9000, protocol: "UDP" },
        { name: "metrics", containerPort: 9090, protocol: "TCP" },
      ],
    });
  });

  it("a pod without an IP or node is reported, not guessed", () => {
    const noIp = podInputFromK8s({ metadata: { name: "p", namespace: "a" }, spec: { nodeName: "n", containers: [] } });
    assert.ok(!noIp.ok);
    assert.deepEqual(noIp.error, { object: "pod a/p", path: "status.podIP", reason: "pod has no IP yet" });
    const pending = podInputFromK8s({ metadata: { name: "p" }, spec: { containers: [] }, status: { podIP: "10.0.0.1" } });
    assert.ok(!pending.ok);
    assert.equal(pending.error.path, "spec.nodeName");
  });

  it("nodes keep internal/external addresses and add tunnel addresses; namespaces keep labels", () => {
    const n = nodeInputFromK8s(
      {
        metadata: { name: "worker31.cyh.cloud" },
        status: {
          addresses: [
            { type: "InternalIP", address: "10.1.8.31" },
            { type: "Hostname", address: "worker31.cyh.cloud" },
          ],
        },
      },
      ["10.224.41.128"],
    );
    assert.deepEqual(n, { name: "worker31.cyh.cloud", ips: ["10.1.8.31", "10.224.41.128"] });
    assert.deepEqual(namespaceInputFromK8s({ metadata: { name: "cyh", labels: { project: "myproject" } } }), {
      name: "cyh",
      labels: { project: "myproject" },
    });
  });
});
