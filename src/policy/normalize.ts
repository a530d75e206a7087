// Validates a networking.k8s.io/v1 NetworkPolicy and turns it into the compiler's normalized form:
// policyTypes defaulted, selectors compiled, ipBlocks parsed, ports resolved to protocol + range/name.
// Errors name the policy and the field path (e.g. spec.ingress[0].from[1].ipBlock.except[0]).
import type { NetworkPolicy, NetworkPolicyPeer, NetworkPolicyPort } from "kubernetes-types/networking/v1.js";
import { compileSelectorChecked, type CompiledSelector } from "../k8s/selector.js";
import { parseIPv6 } from "../util/ip.js";
import { err, ok, type Result } from "../util/result.js";
import { formatPrefix, parsePrefix, prefixWithin, type Prefix } from "./prefix.js";
import { POLICY_PROTOCOLS, type PolicyProtocol } from "./types.js";

export type PolicyError = { readonly policy: string; readonly path: string; readonly reason: string };

export type PortMatch =
  | { readonly kind: "any" }
  | { readonly kind: "range"; readonly lo: number; readonly hi: number }
  | { readonly kind: "named"; readonly name: string };

export type NormPort = { readonly protocol: PolicyProtocol; readonly match: PortMatch; readonly text: string };

export type NormPeer =
  | {
      readonly kind: "pods";
      /** null: the policy's own namespace (podSelector alone). */
      readonly namespaceSelector: CompiledSelector | null;
      /** null: every pod of the selected namespaces (namespaceSelector alone). */
      readonly podSelector: CompiledSelector | null;
      readonly text: string;
    }
  | { readonly kind: "ipBlock"; readonly cidr: Prefix; readonly except: readonly Prefix[]; readonly text: string }
  /** An IPv6 ipBlock (dual-stack policies): valid, but this IPv4 model has no address it could match. */
  | { readonly kind: "ipv6Block"; readonly text: string };

export type NormRule = {
  readonly index: number;
  /** null: every peer (from/to missing or empty). */
  readonly peers: readonly NormPeer[] | null;
  /** null: every port and protocol (ports missing or empty). */
  readonly ports: readonly NormPort[] | null;
};

export type NormPolicy = {
  /** "namespace/name" */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly podSelector: CompiledSelector;
  /** null when the policy does not apply to ingress; [] isolates and allows nothing. */
  readonly ingress: readonly NormRule[] | null;
  readonly egress: readonly NormRule[] | null;
};

const NAMED_PORT = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function portText(p: NormPort): string {
  switch (p.match.kind) {
    case "any":
      return `*/${p.protocol}`;
    case "range":
      return p.match.lo === p.match.hi ? `${p.match.lo}/${p.protocol}` : `${p.match.lo}-${p.match.hi}/${p.protocol}`;
    case "named":
      return `${p.match.name}/${p.protocol}`;
  }
}

export function normalizePolicy(np: NetworkPolicy): Result<NormPolicy, PolicyError> {
  const namespace = np.metadata?.namespace ?? "default";
  const name = np.metadata?.name ?? "";
  const key = `${namespace}/${name}`;
  const fail = (path: string, reason: string) => err<PolicyError>({ policy: key, path, reason });
  if (name === "") return fail("metadata.name", "missing name");
  const spec = np.spec;
  if (spec === undefined || spec === null) return fail("spec", "missing spec");
  const target = compileSelectorChecked(spec.podSelector ?? {});
  if (!target.ok) return fail(`spec.podSelector.${target.error.path}`, target.error.reason);

  let types = spec.policyTypes ?? [];
  for (const [i, t] of types.entries()) {
    if (t !== "Ingress" && t !== "Egress") return fail(`spec.policyTypes[${i}]`, `unknown policy type ${JSON.stringify(t)}`);
  }
  // Defaulting as documented on NetworkPolicySpec.policyTypes: Ingress always, Egress when egress rules exist.
  if (types.length === 0) types = (spec.egress?.length ?? 0) > 0 ? ["Ingress", "Egress"] : ["Ingress"];

  const ingress = types.includes("Ingress") ? normalizeRules(spec.ingress ?? [], "ingress", "from", namespace, fail) : ok(null);
  if (!ingress.ok) return ingress;
  const egress = types.includes("Egress") ? normalizeRules(spec.egress ?? [], "egress", "to", namespace, fail) : ok(null);
  if (!egress.ok) return egress;
  return ok({ key, namespace, name, podSelector: target.value, ingress: ingress.value, egress: egress.value });
}

type Fail = (path: string, reason: string) => Result<never, PolicyError>;

function normalizeRules(
  rules: ReadonlyArray<{ ports?: NetworkPolicyPort[]; from?: NetworkPolicyPeer[]; to?: NetworkPolicyPeer[] }>,
  dir: "ingress" | "egress",
  peerField: "from" | "to",
  namespace: string,
  fail: Fail,
): Result<NormRule[], PolicyError> {
  if (!Array.isArray(rules)) return fail(`spec.${dir}`, "must be a list");
  const out: NormRule[] = [];
  for (const [index, rule] of rules.entries()) {
    const base = `spec.${dir}[${index}]`;
    const rawPeers = (rule ?? {})[peerField] ?? [];
    const rawPorts = (rule ?? {}).ports ?? [];
    const peers: NormPeer[] = [];
    for (const [j, peer] of rawPeers.entries()) {
      const r = normalizePeer(peer, `${base}.${peerField}[${j}]`, namespace, fail);
      if (!r.ok) return r;
      peers.push(r.value);
    }
    const ports: NormPort[] = [];
    for (const [j, port] of rawPorts.entries()) {
      const r = normalizePort(port, `${base}.ports[${j}]`, fail);
      if (!r.ok) return r;
      ports.push(r.value);
    }
    out.push({ index, peers: peers.length === 0 ? null : peers, ports: ports.length === 0 ? null : ports });
  }
  return ok(out);
}

function normalizePeer(peer: NetworkPolicyPeer, path: string, namespace: string, fail: Fail): Result<NormPeer, PolicyError> {
  const hasSelectors = peer?.podSelector !== undefined || peer?.namespaceSelector !== undefined;
  if (peer?.ipBlock !== undefined) {
    if (hasSelectors) return fail(path, "ipBlock cannot be combined with podSelector or namespaceSelector");
    if (isIPv6Cidr(peer.ipBlock.cidr)) {
      for (const [k, text] of (peer.ipBlock.except ?? []).entries()) {
        if (!isIPv6Cidr(text)) return fail(`${path}.ipBlock.except[${k}]`, `not an IPv6 CIDR: ${JSON.stringify(text)}`);
      }
      return ok({ kind: "ipv6Block", text: `ipBlock ${peer.ipBlock.cidr}` });
    }
    const cidr = parsePrefix(String(peer.ipBlock.cidr ?? ""));
    if (cidr === null) return fail(`${path}.ipBlock.cidr`, `not an IPv4 CIDR: ${JSON.stringify(peer.ipBlock.cidr)}`);
    const except: Prefix[] = [];
    for (const [k, text] of (peer.ipBlock.except ?? []).entries()) {
      const x = parsePrefix(String(text));
      if (x === null) return fail(`${path}.ipBlock.except[${k}]`, `not an IPv4 CIDR: ${JSON.stringify(text)}`);
      if (!prefixWithin(x, cidr) || x.len === cidr.len) {
        return fail(`${path}.ipBlock.except[${k}]`, `${formatPrefix(x)} must be a strict subset of ${formatPrefix(cidr)}`);
      }
      except.push(x);
    }
    const exceptText = except.length > 0 ? ` except ${except.map(formatPrefix).join(", ")}` : "";
    return ok({ kind: "ipBlock", cidr, except, text: `ipBlock ${formatPrefix(cidr)}${exceptText}` });
  }
  if (!hasSelectors) return fail(path, "a peer needs podSelector, namespaceSelector or ipBlock");
  let podSelector: CompiledSelector | null = null;
  let namespaceSelector: CompiledSelector | null = null;
  if (peer.podSelector !== undefined) {
    const r = compileSelectorChecked(peer.podSelector ?? {});
    if (!r.ok) return fail(`${path}.podSelector.${r.error.path}`, r.error.reason);
    podSelector = r.value;
  }
  if (peer.namespaceSelector !== undefined) {
    const r = compileSelectorChecked(peer.namespaceSelector ?? {});
    if (!r.ok) return fail(`${path}.namespaceSelector.${r.error.path}`, r.error.reason);
    namespaceSelector = r.value;
  }
  const parts: string[] = [];
  parts.push(namespaceSelector ? `namespaceSelector ${namespaceSelector.describe()}` : `namespace ${namespace}`);
  parts.push(podSelector ? `podSelector ${podSelector.describe()}` : "every pod");
  return ok({ kind: "pods", namespaceSelector, podSelector, text: parts.join(" and ") });
}

function isIPv6Cidr(text: unknown): boolean {
  if (typeof text !== "string") return false;
  const slash = text.indexOf("/");
  const len = text.slice(slash + 1);
  return slash > 0 && /^\d{1,3}$/.test(len) && Number(len) <= 128 && parseIPv6(text.slice(0, slash)) !== null;
}

function normalizePort(port: NetworkPolicyPort, path: string, fail: Fail): Result<NormPort, PolicyError> {
  const protocol = (port?.protocol ?? "TCP") as PolicyProtocol;
  if (!POLICY_PROTOCOLS.includes(protocol)) return fail(`${path}.protocol`, `unsupported protocol ${JSON.stringify(port.protocol)}`);
  const mk = (match: PortMatch): Result<NormPort, PolicyError> => {
    const p = { protocol, match, text: "" };
    return ok({ ...p, text: portText(p) });
  };
  if (port.port === undefined || port.port === null) {
    if (port.endPort !== undefined) return fail(`${path}.endPort`, "endPort requires port");
    return mk({ kind: "any" });
  }
  if (typeof port.port === "string") {
    if (port.endPort !== undefined) return fail(`${path}.endPort`, "endPort cannot be used with a named port");
    if (port.port.length > 15 || !NAMED_PORT.test(port.port) || !/[a-z]/.test(port.port)) {
      return fail(`${path}.port`, `invalid port name ${JSON.stringify(port.port)}`);
    }
    return mk({ kind: "named", name: port.port });
  }
  if (!Number.isInteger(port.port) || port.port < 1 || port.port > 65535) return fail(`${path}.port`, `port ${port.port} out of range 1-65535`);
  const hi = port.endPort ?? port.port;
  if (!Number.isInteger(hi) || hi < port.port || hi > 65535) {
    return fail(`${path}.endPort`, `endPort ${port.endPort} must be between port ${port.port} and 65535`);
  }
  return mk({ kind: "range", lo: port.port, hi });
}
