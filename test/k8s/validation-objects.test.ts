// Validation rules of the other kinds and of documents, each with a failing example.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadText } from "../../src/k8s/load.js";
import { at, fmt } from "./helpers.js";

const F = "t.yaml";
const d = (text: string, needle: string | [string, number], object: string, path: string, message: string): string => {
  const [n, nth] = typeof needle === "string" ? [needle, 1] : needle;
  return `${F}:${at(text, n, nth)}: ${object}: ${path === "" ? "" : path + ": "}${message}`;
};
const lines = (...l: string[]): string => l.join("\n") + "\n";
const deploy = (spec: string[], kind = "Deployment"): string =>
  lines("apiVersion: apps/v1", `kind: ${kind}`, "metadata: {name: d}", "spec:", ...spec);
const svc = (...spec: string[]): string => lines("apiVersion: v1", "kind: Service", "metadata: {name: s}", "spec:", ...spec);
// (A name such as "n" would be the boolean false in YAML 1.1, as kubectl reads it.)
const np = (...spec: string[]): string => lines("apiVersion: networking.k8s.io/v1", "kind: NetworkPolicy", "metadata: {name: n}", "spec:", ...spec).replace("name: n}", "name: np1}");
const TEMPLATE = ["  template:", "    metadata: {labels: {app: a}}", "    spec: {containers: [{name: c, image: nginx}]}"];

const cases: { rule: string; text: string; expect: (t: string) => string[] }[] = [
  // documents and metadata
  { rule: "kind is required", text: lines("apiVersion: v1", "metadata: {name: x}"), expect: () => [`${F}:1:1: document 1: kind: required value`] },
  {
    rule: "apiVersion is required",
    text: lines("kind: Pod", "metadata: {name: x}"),
    expect: () => [`${F}:1:1: Pod in document 1: apiVersion: required value`],
  },
  {
    rule: "a known kind under a retired built-in apiVersion is refused",
    text: lines("apiVersion: extensions/v1beta1", "kind: Deployment", "metadata: {name: d}"),
    expect: (t) => [
      d(t, "extensions", "Deployment default/d", "apiVersion", 'no matches for kind "Deployment" in version "extensions/v1beta1" (cnisim serves Deployment as apps/v1)'),
    ],
  },
  {
    rule: "a document must be a map",
    text: lines("---", "- a", "- b"),
    expect: () => [`${F}:2:1: document 1: must be a map (a Kubernetes object), not a list`],
  },
  {
    rule: "YAML syntax errors name the document and position",
    text: lines("apiVersion: v1", "kind: Pod", "metadata:", "  name: x", " bad: indent"),
    expect: () => [`${F}:5:1: document 1: yaml: All mapping items must start at the same column`],
  },
  {
    rule: "duplicate map keys are refused",
    text: lines("apiVersion: v1", "kind: Namespace", "metadata: {name: a, name: b}"),
    expect: (t) => [d(t, "name: b", "document 1", "", "yaml: Map keys must be unique")],
  },
  {
    rule: "metadata.name is required",
    text: lines("apiVersion: v1", "kind: Namespace", "metadata: {labels: {a: b}}"),
    expect: (t) => [d(t, "{labels", "Namespace in document 1", "metadata.name", "required value")],
  },
  {
    rule: "Namespace names are DNS-1123 labels",
    text: lines("apiVersion: v1", "kind: Namespace", "metadata: {name: a.b}"),
    expect: (t) => [
      d(t, "a.b", "Namespace a.b", "metadata.name", `invalid value "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`),
    ],
  },
  {
    rule: "Service names are DNS-1035 labels",
    text: svc("  ports: [{port: 80}]").replace("name: s", "name: 1web"),
    expect: (t) => [
      d(t, "1web", "Service default/1web", "metadata.name", `invalid value "1web": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character`),
    ],
  },
  {
    rule: "namespaces are DNS-1123 labels",
    text: svc("  ports: [{port: 80}]").replace("name: s", "name: s, namespace: Web"),
    expect: (t) => [
      d(t, "Web", "Service Web/s", "metadata.namespace", `invalid value "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`),
    ],
  },
  // workloads
  { rule: "Deployment needs a selector", text: deploy(TEMPLATE), expect: () => [`${F}:5:3: Deployment default/d: spec.selector: required value`] },
  {
    rule: "an empty selector is invalid",
    text: deploy(["  selector: {}", ...TEMPLATE]),
    expect: (t) => [d(t, "{}", "Deployment default/d", "spec.selector", "empty selector is invalid for deployment")],
  },
  {
    rule: "the selector must match the template labels",
    text: deploy(["  selector: {matchLabels: {app: b}}", ...TEMPLATE]),
    expect: (t) => [d(t, "{app: a}", "Deployment default/d", "spec.template.metadata.labels", "`selector` does not match template `labels`")],
  },
  {
    rule: "templates restart Always",
    text: deploy(["  selector: {matchLabels: {app: a}}", "  template:", "    metadata: {labels: {app: a}}", "    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}"]),
    expect: (t) => [d(t, "Never", "Deployment default/d", "spec.template.spec.restartPolicy", "must be one of Always")],
  },
  {
    rule: "maxUnavailable and maxSurge may not both be 0",
    text: deploy(["  selector: {matchLabels: {app: a}}", "  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0%}}", ...TEMPLATE]),
    expect: (t) => [d(t, "0%", "Deployment default/d", "spec.strategy.rollingUpdate.maxUnavailable", "may not be 0 when `maxSurge` is 0")],
  },
  {
    rule: "maxUnavailable is an integer or a percentage",
    text: deploy(["  selector: {matchLabels: {app: a}}", "  strategy: {rollingUpdate: {maxUnavailable: half}}", ...TEMPLATE]),
    expect: (t) => [
      d(t, "half", "Deployment default/d", "spec.strategy.rollingUpdate.maxUnavailable", `invalid value "half": a valid percent string must be a numeric string followed by an ending '%'`),
    ],
  },
  {
    rule: "Recreate takes no rollingUpdate",
    text: deploy(["  selector: {matchLabels: {app: a}}", "  strategy: {type: Recreate, rollingUpdate: {maxSurge: 1}}", ...TEMPLATE]),
    expect: (t) => [d(t, "{maxSurge", "Deployment default/d", "spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")],
  },
  {
    rule: "progressDeadlineSeconds exceeds minReadySeconds",
    text: deploy(["  selector: {matchLabels: {app: a}}", "  minReadySeconds: 30", "  progressDeadlineSeconds: 30", ...TEMPLATE]),
    expect: (t) => [d(t, ["30", 2], "Deployment default/d", "spec.progressDeadlineSeconds", "must be greater than minReadySeconds")],
  },
  {
    rule: "replicas are not negative",
    text: deploy(["  replicas: -1", "  selector: {matchLabels: {app: a}}", ...TEMPLATE]),
    expect: (t) => [d(t, "-1", "Deployment default/d", "spec.replicas", "must be greater than or equal to 0")],
  },
  {
    rule: "a ReplicaSet with replicas needs a template",
    text: deploy(["  selector: {matchLabels: {app: a}}"], "ReplicaSet"),
    expect: (t) => [d(t, "selector", "ReplicaSet default/d", "spec.template", "required value")],
  },
  {
    rule: "OnDelete DaemonSets take no rollingUpdate",
    text: deploy(["  selector: {matchLabels: {app: a}}", "  updateStrategy: {type: OnDelete, rollingUpdate: {maxUnavailable: 1}}", ...TEMPLATE], "DaemonSet"),
    expect: (t) => [d(t, "{maxUnavailable", "DaemonSet default/d", "spec.updateStrategy.rollingUpdate", "may not be specified when strategy `type` is 'OnDelete'")],
  },
  // services
  { rule: "a Service needs ports", text: svc("  selector: {app: a}"), expect: (t) => [d(t, "selector", "Service default/s", "spec.ports", "required value")] },
  {
    rule: "several ports need names",
    text: svc("  ports: [{port: 80}, {port: 443}]"),
    expect: (t) => [d(t, "{port: 80}", "Service default/s", "spec.ports[0].name", "required value"), d(t, "{port: 443}", "Service default/s", "spec.ports[1].name", "required value")],
  },
  {
    rule: "port and protocol pairs are unique",
    text: svc("  ports: [{name: a, port: 80}, {name: b, port: 80}]"),
    expect: (t) => [d(t, "{name: b", "Service default/s", "spec.ports[1]", "duplicate value: port 80/TCP")],
  },
  {
    rule: "port names are unique",
    text: svc("  ports: [{name: a, port: 80}, {name: a, port: 81}]"),
    expect: (t) => [d(t, ["a,", 2], "Service default/s", "spec.ports[1].name", 'duplicate value "a"')],
  },
  {
    rule: "nodePort needs type NodePort or LoadBalancer",
    text: svc("  ports: [{port: 80, nodePort: 30080}]"),
    expect: (t) => [d(t, "30080", "Service default/s", "spec.ports[0].nodePort", "may not be used when `type` is 'ClusterIP'")],
  },
  {
    rule: "externalTrafficPolicy needs type NodePort or LoadBalancer",
    text: svc("  externalTrafficPolicy: Local", "  ports: [{port: 80}]"),
    expect: (t) => [d(t, "Local", "Service default/s", "spec.externalTrafficPolicy", "may only be set when `type` is 'NodePort' or 'LoadBalancer'")],
  },
  {
    rule: "a NodePort service cannot be headless",
    text: svc("  type: NodePort", "  clusterIP: None", "  ports: [{port: 80}]"),
    expect: (t) => [d(t, "None", "Service default/s", "spec.clusterIP", "may not be set to 'None' for NodePort services")],
  },
  {
    rule: "sessionAffinityConfig needs ClientIP affinity",
    text: svc("  sessionAffinityConfig: {clientIP: {timeoutSeconds: 60}}", "  ports: [{port: 80}]"),
    expect: (t) => [d(t, "{clientIP", "Service default/s", "spec.sessionAffinityConfig", "must not be set when `sessionAffinity` is None")],
  },
  {
    rule: "ExternalName services need externalName",
    text: svc("  type: ExternalName"),
    expect: (t) => [d(t, "type", "Service default/s", "spec.externalName", "required value")],
  },
  {
    rule: "targetPort is a port number or an IANA name",
    text: svc("  ports: [{port: 80, targetPort: 0}]"),
    expect: (t) => [d(t, "0}", "Service default/s", "spec.ports[0].targetPort", "must be between 1 and 65535, inclusive")],
  },
  {
    rule: "Service types are ClusterIP, NodePort, LoadBalancer, ExternalName",
    text: svc("  type: Nodeport", "  ports: [{port: 80}]"),
    expect: (t) => [d(t, "Nodeport", "Service default/s", "spec.type", "must be one of ClusterIP, NodePort, LoadBalancer, ExternalName")],
  },
  // network policies
  {
    rule: "a peer must select something",
    text: np("  podSelector: {}", "  ingress: [{from: [{}]}]"),
    expect: (t) => [d(t, "{}]", "NetworkPolicy default/np1", "spec.ingress[0].from[0]", "must specify a peer")],
  },
  {
    rule: "ipBlock excludes the selectors",
    text: np("  podSelector: {}", "  egress: [{to: [{ipBlock: {cidr: 10.0.0.0/8}, podSelector: {}}]}]"),
    expect: (t) => [d(t, "{ipBlock", "NetworkPolicy default/np1", "spec.egress[0].to[0]", "may not specify both ipBlock and another peer")],
  },
  {
    rule: "except ranges are strict subsets of cidr",
    text: np("  podSelector: {}", "  ingress: [{from: [{ipBlock: {cidr: 10.1.8.0/24, except: [10.1.8.0/24, 10.2.0.0/26]}}]}]"),
    expect: (t) => [
      d(t, ["10.1.8.0/24", 2], "NetworkPolicy default/np1", "spec.ingress[0].from[0].ipBlock.except[0]", 'invalid value "10.1.8.0/24": must be a strict subset of `cidr`'),
      d(t, "10.2.0.0/26", "NetworkPolicy default/np1", "spec.ingress[0].from[0].ipBlock.except[1]", 'invalid value "10.2.0.0/26": must be a strict subset of `cidr`'),
    ],
  },
  {
    rule: "ipBlock.cidr is a CIDR",
    text: np("  podSelector: {}", "  ingress: [{from: [{ipBlock: {cidr: 10.1.8.0}}]}]"),
    expect: (t) => [d(t, "10.1.8.0}", "NetworkPolicy default/np1", "spec.ingress[0].from[0].ipBlock.cidr", 'invalid value "10.1.8.0": must be a valid CIDR')],
  },
  {
    rule: "endPort needs a numeric port not above it",
    text: np("  podSelector: {}", "  ingress: [{ports: [{endPort: 90}, {port: http, endPort: 90}, {port: 100, endPort: 90}]}]"),
    expect: (t) => [
      d(t, "90}", "NetworkPolicy default/np1", "spec.ingress[0].ports[0].endPort", "may not be specified when `port` is not specified"),
      d(t, ["90}", 2], "NetworkPolicy default/np1", "spec.ingress[0].ports[1].endPort", "may not be specified when `port` is non-numeric"),
      d(t, ["90}", 3], "NetworkPolicy default/np1", "spec.ingress[0].ports[2].endPort", "must be greater than or equal to `port`"),
    ],
  },
  {
    rule: "policyTypes are Ingress or Egress",
    text: np("  podSelector: {}", "  policyTypes: [Both]"),
    expect: (t) => [d(t, "Both", "NetworkPolicy default/np1", "spec.policyTypes[0]", "must be one of Ingress, Egress")],
  },
  {
    rule: "policyTypes name each type once, at most two",
    text: np("  podSelector: {}", "  policyTypes: [Ingress, Egress, Ingress]"),
    expect: (t) => [
      d(t, "[Ingress", "NetworkPolicy default/np1", "spec.policyTypes", "may not specify more than two policyTypes"),
      d(t, ["Ingress", 2], "NetworkPolicy default/np1", "spec.policyTypes[2]", 'duplicate value "Ingress"'),
    ],
  },
  // nodes and budgets
  {
    rule: "taints are unique by key and effect",
    text: lines("apiVersion: v1", "kind: Node", "metadata: {name: n1}", "spec: {taints: [{key: a, effect: NoSchedule}, {key: a, value: b, effect: NoSchedule}]}"),
    expect: (t) => [d(t, "{key: a, value", "Node n1", "spec.taints[1]", 'duplicate value "a:NoSchedule": taints must be unique by key and effect pair')],
  },
  {
    rule: "taints need an effect",
    text: lines("apiVersion: v1", "kind: Node", "metadata: {name: n1}", "spec: {taints: [{key: a}]}"),
    expect: (t) => [d(t, "{key: a}", "Node n1", "spec.taints[0].effect", "required value")],
  },
  {
    rule: "node podCIDR is a CIDR",
    text: lines("apiVersion: v1", "kind: Node", "metadata: {name: n1}", "spec: {podCIDR: 10.0.0.0/40}"),
    expect: (t) => [d(t, "10.0.0.0/40", "Node n1", "spec.podCIDR", 'invalid value "10.0.0.0/40": must be a valid CIDR')],
  },
  {
    rule: "allocatable is not negative",
    text: lines("apiVersion: v1", "kind: Node", "metadata: {name: n1}", "status: {allocatable: {cpu: '-1'}}"),
    expect: (t) => [d(t, "'-1'", "Node n1", "status.allocatable[cpu]", 'invalid value "-1": must be greater than or equal to 0')],
  },
  {
    rule: "a budget sets minAvailable or maxUnavailable, not both",
    text: lines("apiVersion: policy/v1", "kind: PodDisruptionBudget", "metadata: {name: b}", "spec: {minAvailable: 2, maxUnavailable: 1, selector: {matchLabels: {a: b}}}"),
    expect: (t) => [d(t, "{minAvailable", "PodDisruptionBudget default/b", "spec", "minAvailable and maxUnavailable cannot be both set")],
  },
  {
    rule: "a budget percentage is at most 100%",
    text: lines("apiVersion: policy/v1", "kind: PodDisruptionBudget", "metadata: {name: b}", "spec: {minAvailable: 120%}"),
    expect: (t) => [d(t, "120%", "PodDisruptionBudget default/b", "spec.minAvailable", "must not be greater than 100%")],
  },
];

for (const c of cases) {
  test(`rule: ${c.rule}`, () => {
    const r = loadText(c.text, F);
    assert.deepEqual(fmt(r.errors), c.expect(c.text));
    assert.equal(r.objects.length, 0);
  });
}
