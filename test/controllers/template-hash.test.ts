// pod-template-hash against real oracles: ReplicaSet names the seed lab's cluster (Kubernetes
// 1.30.2) printed for the lab's own Deployment manifests. The seed's author replaced the
// domain laoma.cloud by cyh.cloud when publishing; only the nodeName template contains it, and
// with the original name restored its hash matches too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { computeTemplateHash, safeEncodeString } from "../../src/controllers/index.js";
import { spewGoValue } from "../../src/controllers/template-hash/spew.js";
import { int, map, ptr, slice, str, struct } from "../../src/controllers/template-hash/go-value.js";
import { one } from "./support.js";

const deploymentText = (name: string, templateSpec: string, container: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: ${name}
  name: ${name}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
${templateSpec}
      containers:
${container}
`;

const antiAffinity = (app: string): string => `        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchExpressions:
              - key: app
                operator: In
                values:
                - ${app}
            topologyKey: "kubernetes.io/hostname"`;

const SEED_TEMPLATES: readonly { hash: string; text: string; what: string }[] = [
  {
    what: "nodeSelector disktype: ssd (webapp-7d675f9d9c-gm824)",
    hash: "7d675f9d9c",
    text: deploymentText("webapp", "      nodeSelector:\n        disktype: ssd", "      - image: nginx\n        name: nginx"),
  },
  {
    what: "nodeName, resources: {} and creationTimestamp: null from --dry-run (webapp-55c6b896bc-kdrcp)",
    hash: "55c6b896bc",
    text: deploymentText("webapp", "      nodeName: worker32.laoma.cloud", "      - image: nginx\n        name: nginx\n        resources: {}").replace(
      "    metadata:\n      labels:",
      "    metadata:\n      creationTimestamp: null\n      labels:",
    ),
  },
  {
    what: "required pod anti-affinity (store-5596cf4c84-dswkq)",
    hash: "5596cf4c84",
    text: deploymentText("store", `      affinity:\n${antiAffinity("store")}`, "      - name: web-server\n        image: docker.io/library/nginx"),
  },
  {
    what: "pod affinity and anti-affinity (web-store-7b4779c958-vpl58)",
    hash: "7b4779c958",
    text: deploymentText(
      "web-store",
      `      affinity:\n${antiAffinity("web-store")}\n        podAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - labelSelector:\n              matchExpressions:\n              - key: app\n                operator: In\n                values:\n                - store\n            topologyKey: "kubernetes.io/hostname"`,
      "      - name: web-app\n        image: docker.io/library/nginx",
    ),
  },
];

for (const { what, hash, text } of SEED_TEMPLATES) {
  test(`pod-template-hash of the seed's ${what} is ${hash}`, () => {
    const d = one(text, "Deployment");
    const h = computeTemplateHash(d.spec!.template);
    assert.equal(h.hash, hash);
    assert.equal(h.exact, true);
  });
}

test("the published (cyh.cloud) nodeName differs from the one the seed's cluster hashed", () => {
  const text = SEED_TEMPLATES[1]!.text.replace("worker32.laoma.cloud", "worker32.cyh.cloud");
  assert.notEqual(computeTemplateHash(one(text, "Deployment").spec!.template).hash, "55c6b896bc");
});

test("SafeEncodeString maps the decimal digits 0-9 to 4 5 6 7 8 9 b c d f", () => {
  assert.equal(safeEncodeString("0123456789"), "456789bcdf");
  assert.equal(safeEncodeString("a"), SAFE(97));
});
const SAFE = (byte: number): string => "bcdfghjklmnpqrstvwxz2456789"[byte % 27]!;

test("a collision count changes the hash (ComputeHash appends it as 8 little-endian bytes)", () => {
  const t = one(SEED_TEMPLATES[0]!.text, "Deployment").spec!.template;
  const plain = computeTemplateHash(t).hash;
  const c0 = computeTemplateHash(t, 0).hash;
  const c1 = computeTemplateHash(t, 1).hash;
  assert.notEqual(plain, c0);
  assert.notEqual(c0, c1);
  assert.equal(computeTemplateHash(t, 1).hash, c1);
});

test("templates with fields cnisim renders approximately say so (exact: false)", () => {
  const withProbe = deploymentText("p", "", "      - image: nginx\n        name: nginx\n        readinessProbe:\n          tcpSocket: {port: 80}");
  assert.equal(computeTemplateHash(one(withProbe, "Deployment").spec!.template).exact, false);
  const withRequests = deploymentText("p", "", "      - image: nginx\n        name: nginx\n        resources:\n          requests: {cpu: 100m}");
  assert.equal(computeTemplateHash(one(withRequests, "Deployment").spec!.template).exact, false);
});

test("spew %#v rules: types in parentheses, nil pointers/slices/maps as <nil>, sorted raw map keys, no types inside slices", () => {
  const t = struct("v1.T", [
    ["Name", "name", str()],
    ["Count", "count", ptr(int("int64"))],
    ["Missing", "missing", ptr(int("int32"))],
    ["Labels", "labels", map(str(), str())],
    ["Items", "items", slice(struct("v1.Item", [["Key", "key", str()]]))],
    ["Empty", "empty", slice(str())],
  ]);
  const r = spewGoValue(t, { name: "x", count: 30, labels: { b: "2", a: "1" }, items: [{ key: "k" }], empty: [] });
  assert.equal(
    r.text,
    "(v1.T){Name:(string)x Count:(*int64)30 Missing:(*int32)<nil> Labels:(map[string]string)map[a:1 b:2] Items:([]v1.Item)[{Key:(string)k}] Empty:([]string)<nil>}",
  );
});
