// Every Pod / PodSpec validation rule with a failing example: exact FILE:LINE:COL, object, path, message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadText } from "../../src/k8s/load.js";
import { at, fmt } from "./helpers.js";

const F = "t.yaml";
/** The formatted diagnostic expected at the nth occurrence of `needle`. */
const d = (text: string, needle: string | [string, number], object: string, path: string, message: string): string => {
  const [n, nth] = typeof needle === "string" ? [needle, 1] : needle;
  return `${F}:${at(text, n, nth)}: ${object}: ${path}: ${message}`;
};
const pod = (spec: string, meta = "{name: p}"): string => `apiVersion: v1\nkind: Pod\nmetadata: ${meta}\nspec:\n${spec}\n`;
const P = "Pod default/p";

function errorsOf(text: string): string[] {
  const r = loadText(text, F);
  assert.equal(r.objects.length, 0, "an object with errors must not be accepted");
  return fmt(r.errors);
}

test("the brief's example: a toleration effect outside the enum, in a Deployment template", () => {
  const text = [
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata: {name: webapp, namespace: web}",
    "spec:",
    "  selector: {matchLabels: {app: webapp}}",
    "  template:",
    "    metadata: {labels: {app: webapp}}",
    "    spec:",
    "      containers: [{name: nginx, image: nginx}]",
    "      tolerations:",
    "      - {key: CPU, operator: Equal, value: L1, effect: NoSchedul}",
  ].join("\n");
  assert.deepEqual(errorsOf(text), [
    "t.yaml:11:56: Deployment web/webapp: spec.template.spec.tolerations[0].effect: must be one of NoSchedule, PreferNoSchedule, NoExecute",
  ]);
  assert.equal(at(text, "NoSchedul"), "11:56");
});

const cases: { rule: string; text: string; expect: (t: string) => string[] }[] = [
  {
    rule: "label values must be strings (YAML integers are not)",
    text: pod("  containers: [{name: c, image: nginx}]", "{name: p, labels: {version: 1}}"),
    expect: (t) => [d(t, "1}", P, "metadata.labels[version]", "must be a string, not an integer")],
  },
  {
    rule: "label keys must be qualified names",
    text: pod("  containers: [{name: c, image: nginx}]", "{name: p, labels: {a/b/c: x}}"),
    expect: (t) => [
      d(t, "a/b/c", P, "metadata.labels[a/b/c]", `invalid value "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`),
    ],
  },
  {
    rule: "label values must be valid label values",
    text: pod("  containers: [{name: c, image: nginx}]", "{name: p, labels: {run: -x}}"),
    expect: (t) => [
      d(t, "-x", P, "metadata.labels[run]", `invalid value "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`),
    ],
  },
  {
    rule: "containers need a name (required field at the container's map)",
    text: pod("  containers: [{image: nginx}]"),
    expect: (t) => [d(t, "{image", P, "spec.containers[0].name", "required value")],
  },
  {
    rule: "containers may not be empty",
    text: pod("  containers: []"),
    expect: (t) => [d(t, "[]", P, "spec.containers", "required value")],
  },
  {
    rule: "a Pod needs spec (required at the root)",
    text: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
    expect: () => [`${F}:1:1: ${P}: spec: required value`],
  },
  {
    rule: "container names are unique",
    text: pod("  containers: [{name: c, image: nginx}, {name: c, image: busybox}]"),
    expect: (t) => [d(t, ["c,", 2], P, "spec.containers[1].name", 'duplicate value "c"')],
  },
  {
    rule: "a Pod's containers need an image",
    text: pod("  containers: [{name: c}]"),
    expect: (t) => [d(t, "{name: c}", P, "spec.containers[0].image", "required value")],
  },
  {
    rule: "container names are DNS-1123 labels",
    text: pod("  containers: [{name: Web, image: nginx}]"),
    expect: (t) => [
      d(t, "Web", P, "spec.containers[0].name", `invalid value "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`),
    ],
  },
  {
    rule: "containerPort is 1-65535",
    text: pod("  containers: [{name: c, image: nginx, ports: [{containerPort: 70000}]}]"),
    expect: (t) => [d(t, "70000", P, "spec.containers[0].ports[0].containerPort", "must be between 1 and 65535, inclusive")],
  },
  {
    rule: "containerPort is an integer, not a string",
    text: pod('  containers: [{name: c, image: nginx, ports: [{containerPort: "80"}]}]'),
    expect: (t) => [d(t, '"80"', P, "spec.containers[0].ports[0].containerPort", "must be an integer, not a string")],
  },
  {
    rule: "port protocols are TCP, UDP or SCTP",
    text: pod("  containers: [{name: c, image: nginx, ports: [{containerPort: 80, protocol: HTTP}]}]"),
    expect: (t) => [d(t, "HTTP", P, "spec.containers[0].ports[0].protocol", "must be one of TCP, UDP, SCTP")],
  },
  {
    rule: "port names are IANA service names",
    text: pod("  containers: [{name: c, image: nginx, ports: [{containerPort: 80, name: web--http}]}]"),
    expect: (t) => [d(t, "web--http", P, "spec.containers[0].ports[0].name", 'invalid value "web--http": must not contain consecutive hyphens')],
  },
  {
    rule: "port names are unique within a container",
    text: pod("  containers: [{name: c, image: nginx, ports: [{containerPort: 80, name: web}, {containerPort: 81, name: web}]}]"),
    expect: (t) => [d(t, ["web}", 2], P, "spec.containers[0].ports[1].name", 'duplicate value "web"')],
  },
  {
    rule: "quantities follow resource.Quantity syntax",
    text: pod("  containers: [{name: c, image: nginx, resources: {requests: {cpu: 1.1.M}}}]"),
    expect: (t) => [
      d(t, "1.1.M", P, "spec.containers[0].resources.requests[cpu]", `invalid value "1.1.M": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`),
    ],
  },
  {
    rule: "resource names are standard or fully qualified",
    text: pod("  containers: [{name: c, image: nginx, resources: {limits: {gpu: 1}}}]"),
    expect: (t) => [d(t, "gpu", P, "spec.containers[0].resources.limits[gpu]", 'invalid value "gpu": must be a standard resource type or fully qualified')],
  },
  {
    rule: "requests may not exceed limits",
    text: pod("  containers: [{name: c, image: nginx, resources: {requests: {cpu: 2}, limits: {cpu: 1}}}]"),
    expect: (t) => [d(t, "2}", P, "spec.containers[0].resources.requests[cpu]", 'invalid value "2": must be less than or equal to cpu limit of 1')],
  },
  {
    rule: "quantities may not be negative",
    text: pod("  containers: [{name: c, image: nginx, resources: {requests: {memory: -1Mi}}}]"),
    expect: (t) => [d(t, "-1Mi", P, "spec.containers[0].resources.requests[memory]", 'invalid value "-1Mi": must be greater than or equal to 0')],
  },
  {
    rule: "list entries of strings may not be null",
    text: pod("  containers: [{name: c, image: busybox, args: [sleep, null]}]"),
    expect: (t) => [d(t, "null", P, "spec.containers[0].args[1]", "must not be null")],
  },
  {
    rule: "restartPolicy is Always, OnFailure or Never",
    text: pod("  restartPolicy: Sometimes\n  containers: [{name: c, image: nginx}]"),
    expect: (t) => [d(t, "Sometimes", P, "spec.restartPolicy", "must be one of Always, OnFailure, Never")],
  },
  {
    rule: "nodeName is a DNS subdomain",
    text: pod("  nodeName: Worker_31\n  containers: [{name: c, image: nginx}]"),
    expect: (t) => [
      d(t, "Worker_31", P, "spec.nodeName", `invalid value "Worker_31": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`),
    ],
  },
  {
    rule: "nodeSelector keys are qualified names",
    text: pod("  nodeSelector: {'-ssd': 'yes'}\n  containers: [{name: c, image: nginx}]"),
    expect: (t) => [
      d(t, "'-ssd'", P, "spec.nodeSelector[-ssd]", `invalid value "-ssd": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`),
    ],
  },
  {
    rule: "a toleration with an empty key must use Exists",
    text: pod("  containers: [{name: c, image: nginx}]\n  tolerations: [{operator: Equal, value: x}]"),
    expect: (t) => [d(t, "Equal", P, "spec.tolerations[0].operator", 'must be Exists when `key` is empty, which means "match all values and all keys"')],
  },
  {
    rule: "an Exists toleration has no value",
    text: pod("  containers: [{name: c, image: nginx}]\n  tolerations: [{key: CPU, operator: Exists, value: L1}]"),
    expect: (t) => [d(t, "Exists", P, "spec.tolerations[0].operator", "value must be empty when `operator` is 'Exists'")],
  },
  {
    rule: "toleration operators are Equal or Exists",
    text: pod("  containers: [{name: c, image: nginx}]\n  tolerations: [{key: CPU, operator: In, value: L1}]"),
    expect: (t) => [d(t, "In,", P, "spec.tolerations[0].operator", "must be one of Equal, Exists")],
  },
  {
    rule: "tolerationSeconds needs effect NoExecute",
    text: pod("  containers: [{name: c, image: nginx}]\n  tolerations: [{key: CPU, operator: Exists, effect: NoSchedule, tolerationSeconds: 60}]"),
    expect: (t) => [d(t, "NoSchedule", P, "spec.tolerations[0].effect", "effect must be 'NoExecute' when `tolerationSeconds` is set")],
  },
  {
    rule: "required node affinity needs at least one term",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}"),
    expect: (t) => [
      d(t, "[]", P, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms", "must have at least one node selector term"),
    ],
  },
  {
    rule: "node selector In needs values",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: CPU, operator: In}]}]}}}"),
    expect: (t) => [
      d(t, "{key: CPU", P, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values", "must be specified when `operator` is 'In' or 'NotIn'"),
    ],
  },
  {
    rule: "node selector Exists takes no values",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: MEM, operator: Exists, values: [L1]}]}}]}}"),
    expect: (t) => [
      d(t, "[L1]", P, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchExpressions[0].values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
    ],
  },
  {
    rule: "node selector Gt takes one integer",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: cores, operator: Gt, values: [L1]}]}]}}}"),
    expect: (t) => [
      d(t, "L1", P, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]", 'invalid value "L1": must be an integer'),
    ],
  },
  {
    rule: "node selector operators are In, NotIn, Exists, DoesNotExist, Gt, Lt",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: CPU, operator: Equals, values: [L1]}]}]}}}"),
    expect: (t) => [
      d(t, "Equals", P, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator", "must be one of In, NotIn, Exists, DoesNotExist, Gt, Lt"),
    ],
  },
  {
    rule: "matchFields only selects metadata.name",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchFields: [{key: spec.x, operator: In, values: [a]}]}]}}}"),
    expect: (t) => [
      d(t, "spec.x", P, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields[0].key", "must be one of metadata.name"),
    ],
  },
  {
    rule: "preferred weights are 1-100",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 0, preference: {}}]}}"),
    expect: (t) => [d(t, "0,", P, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight", "must be between 1 and 100, inclusive")],
  },
  {
    rule: "pod affinity terms need a topologyKey",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: {matchLabels: {app: web}}}]}}"),
    expect: (t) => [d(t, "{labelSelector", P, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "required value")],
  },
  {
    rule: "pod anti-affinity topologyKey may not be empty",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: ''}]}}"),
    expect: (t) => [d(t, "''", P, "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey", "can not be empty")],
  },
  {
    rule: "label selector operators are In, NotIn, Exists, DoesNotExist",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: Gt, values: ['1']}]}}]}}"),
    expect: (t) => [
      d(t, "Gt", P, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator", "must be one of In, NotIn, Exists, DoesNotExist"),
    ],
  },
  {
    rule: "label selector In needs values",
    text: pod("  containers: [{name: c, image: nginx}]\n  affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone, labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: []}]}}]}}"),
    expect: (t) => [
      d(t, "[]", P, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values", "must be specified when `operator` is 'In' or 'NotIn'"),
    ],
  },
  {
    rule: "minDomains needs whenUnsatisfiable DoNotSchedule",
    text: pod("  containers: [{name: c, image: nginx}]\n  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}]"),
    expect: (t) => [d(t, "2}", P, "spec.topologySpreadConstraints[0].minDomains", "can only use minDomains if whenUnsatisfiable=DoNotSchedule")],
  },
  {
    rule: "maxSkew is positive",
    text: pod("  containers: [{name: c, image: nginx}]\n  topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]"),
    expect: (t) => [d(t, "0,", P, "spec.topologySpreadConstraints[0].maxSkew", "must be greater than zero")],
  },
  {
    rule: "status.podIP is an IP address",
    text: pod("  containers: [{name: c, image: nginx}]") + "status: {podIP: 10.224.0.300}\n",
    expect: (t) => [d(t, "10.224.0.300", P, "status.podIP", 'invalid value "10.224.0.300": must be a valid IP address, (e.g. 10.9.8.7)')],
  },
  {
    rule: "Calico's ipAddrs annotation is a JSON list of IPs",
    text: pod("  containers: [{name: c, image: nginx}]", "{name: p, annotations: {cni.projectcalico.org/ipAddrs: '10.224.0.5'}}"),
    expect: (t) => [
      d(t, "'10.224.0.5'", P, "metadata.annotations[cni.projectcalico.org/ipAddrs]", 'invalid value "10.224.0.5": must be a JSON list of IP addresses, e.g. ["10.224.1.5"]'),
    ],
  },
];

for (const c of cases) {
  test(`Pod rule: ${c.rule}`, () => assert.deepEqual(errorsOf(c.text), c.expect(c.text)));
}

test("a template may leave the image empty (config tools fill it in), a Pod may not", () => {
  const deploy =
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec: {containers: [{name: c}]}\n";
  const r = loadText(deploy, F);
  assert.deepEqual(fmt(r.errors), []);
  assert.equal(r.objects.length, 1);
});

test("all errors of an object are collected, not only the first", () => {
  const text = pod("  containers: [{name: C, image: nginx, ports: [{containerPort: 0}]}]\n  tolerations: [{effect: Never}]", "{name: P_1}");
  const r = loadText(text, F);
  assert.equal(r.errors.length, 5, fmt(r.errors).join("\n"));
  assert.deepEqual(
    r.errors.map((e) => e.path),
    ["metadata.name", "spec.containers[0].name", "spec.containers[0].ports[0].containerPort", "spec.tolerations[0].operator", "spec.tolerations[0].effect"],
  );
});
