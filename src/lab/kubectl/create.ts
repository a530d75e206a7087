// The imperative generators: kubectl create namespace|deployment, run, expose. Objects are built
// as kubectl builds them on the client (so --dry-run=client -o yaml prints what kubectl prints),
// then defaulted by the k8s loader and created like any manifest.
import type { Container, ServicePort } from "kubernetes-types/core/v1.js";
import { formatDiagnostic, loadText, type KubeObject } from "../../k8s/index.js";
import { createObject } from "./api.js";
import { done, kubectlError, namespaceOf, serverError, usage, type CommandResult, type KubectlEnv } from "./env.js";
import { flagBool, flagList, flagString, parseFlags, type FlagSpecs, type ParsedArgs } from "./flags.js";
import { toJson, toYaml } from "./output.js";
import { applyOrCreate } from "./manifests.js";
import { resourceOfKind, resourceType, splitTypeAndNames } from "./resources.js";
import { stringify } from "yaml";

const DRY_RUN_FLAGS: FlagSpecs = { "dry-run": { kind: "string" }, output: { kind: "string", short: "o" } };

/** Prints or creates a client-built object, honouring --dry-run=client and -o. */
function finish(env: KubectlEnv, p: ParsedArgs, obj: Record<string, unknown>, verbPast: string): CommandResult {
  const dryRun = flagString(p, "dry-run");
  const output = flagString(p, "output");
  if (dryRun !== undefined && dryRun !== "client" && dryRun !== "server" && dryRun !== "none") return usage(`Invalid dry-run value (${dryRun}). Must be "none", "server", or "client".`);
  const meta = obj["metadata"] as { name: string };
  const kind = obj["kind"] as string;
  if (dryRun === "client" || dryRun === "server") {
    if (output === "yaml") for (const line of toYaml(obj)) env.io.out(line);
    else if (output === "json") for (const line of toJson(obj)) env.io.out(line);
    else if (output === undefined || output === "name") env.io.out(`${resourceType(kind)!.singular}/${meta.name} ${verbPast} (dry run)`);
    else return usage(`unable to match a printer suitable for the output format "${output}"`);
    return done;
  }
  const loaded = loadText(stringify(obj, { aliasDuplicateObjects: false }), `${kind.toLowerCase()}/${meta.name}`, { namespace: namespaceOf(env, p) });
  if (loaded.errors.length > 0) return kubectlError(env, loaded.errors.map(formatDiagnostic).join("; "));
  const object = loaded.objects[0]!.object;
  const r = createObject(env.cluster, object);
  if (!r.ok) return serverError(env, r.error.reason, r.error.message);
  if (output === "yaml") for (const line of toYaml(r.value)) env.io.out(line);
  else env.io.out(`${resourceOfKind(object.kind).singular}/${meta.name} ${verbPast}`);
  return done;
}

/** kubectl create deployment's container name: the image's last path element without tag or digest. */
export function containerNameFromImage(image: string): string {
  const last = image.split("/").pop() ?? image;
  return last.split(":")[0]!.split("@")[0]!;
}

export function create(env: KubectlEnv, words: readonly string[]): CommandResult {
  const [sub, ...rest] = words;
  if (sub === undefined || sub.startsWith("-")) return applyOrCreate(env, words, "create");
  switch (sub) {
    case "namespace":
    case "ns":
      return createNamespace(env, rest);
    case "deployment":
    case "deploy":
      return createDeployment(env, rest);
    default:
      return usage(`cnisim's kubectl create supports -f, namespace and deployment, not "${sub}"`);
  }
}

function createNamespace(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, DRY_RUN_FLAGS);
  if (!parsed.ok) return usage(parsed.error);
  const [name, ...extra] = parsed.value.args;
  if (name === undefined || extra.length > 0) return usage("exactly one NAME is required, got " + parsed.value.args.length);
  return finish(env, parsed.value, { apiVersion: "v1", kind: "Namespace", metadata: { creationTimestamp: null, name }, spec: {}, status: {} }, "created");
}

function createDeployment(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, { ...DRY_RUN_FLAGS, image: { kind: "list" }, replicas: { kind: "string", short: "r" }, port: { kind: "string" } });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const [name, ...extra] = p.args;
  if (name === undefined || extra.length > 0) return usage("exactly one NAME is required, got " + p.args.length);
  const images = flagList(p, "image");
  if (images.length === 0) return usage("required flag(s) \"image\" not set");
  const replicas = Number(flagString(p, "replicas") ?? "1");
  if (!Number.isInteger(replicas) || replicas < 0) return usage(`invalid --replicas ${flagString(p, "replicas")}`);
  const port = flagString(p, "port");
  if (port !== undefined && images.length > 1) return usage("cannot specify port with multiple images");
  const containers: Container[] = images.map((image) => ({
    image,
    name: containerNameFromImage(image),
    ...(port === undefined ? {} : { ports: [{ containerPort: Number(port) }] }),
    resources: {},
    ...(p.rest === null ? {} : { command: p.rest }),
  }));
  const labels = { app: name };
  const ns = flagString(p, "namespace");
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { creationTimestamp: null, labels, name, ...(ns === undefined ? {} : { namespace: ns }) },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      strategy: {},
      template: { metadata: { creationTimestamp: null, labels }, spec: { containers } },
    },
    status: {},
  };
  return finish(env, p, deployment, "created");
}

export function run(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, {
    ...DRY_RUN_FLAGS,
    image: { kind: "string" },
    labels: { kind: "string", short: "l" },
    port: { kind: "string" },
    restart: { kind: "string" },
    "image-pull-policy": { kind: "string" },
    env: { kind: "list" },
    command: { kind: "bool" },
    stdin: { kind: "bool", short: "i" },
    tty: { kind: "bool", short: "t" },
    rm: { kind: "bool" },
  });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const [name, ...extra] = p.args;
  if (name === undefined) return usage("NAME is required for run");
  const image = flagString(p, "image");
  if (image === undefined) return usage("required flag(s) \"image\" not set");
  if (flagBool(p, "stdin") || flagBool(p, "rm")) return usage("kubectl run -i/--rm attaches to the pod; a lab script cannot");
  const argv = [...extra, ...(p.rest ?? [])];
  const labels: Record<string, string> = {};
  const labelText = flagString(p, "labels");
  if (labelText !== undefined) {
    for (const kv of labelText.split(",")) {
      const [k, v] = kv.split("=");
      if (k === undefined || v === undefined) return kubectlError(env, `invalid label spec: ${kv}`);
      labels[k] = v;
    }
  } else labels["run"] = name;
  const container: Record<string, unknown> = {
    ...(argv.length > 0 ? { [flagBool(p, "command") ? "command" : "args"]: argv } : {}),
    env: flagList(p, "env").length === 0 ? undefined : flagList(p, "env").map((e) => ({ name: e.split("=")[0], value: e.split("=").slice(1).join("=") })),
    image,
    imagePullPolicy: flagString(p, "image-pull-policy"),
    name,
    ports: flagString(p, "port") === undefined ? undefined : [{ containerPort: Number(flagString(p, "port")) }],
    resources: {},
  };
  const ns = flagString(p, "namespace");
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { creationTimestamp: null, labels, name, ...(ns === undefined ? {} : { namespace: ns }) },
    spec: { containers: [container], dnsPolicy: "ClusterFirst", restartPolicy: flagString(p, "restart") ?? "Always" },
    status: {},
  };
  return finish(env, p, pod, "created");
}

export function expose(env: KubectlEnv, words: readonly string[]): CommandResult {
  const parsed = parseFlags(words, {
    ...DRY_RUN_FLAGS,
    port: { kind: "string" },
    "target-port": { kind: "string" },
    type: { kind: "string" },
    name: { kind: "string" },
    protocol: { kind: "string" },
    selector: { kind: "string" },
  });
  if (!parsed.ok) return usage(parsed.error);
  const p = parsed.value;
  const split = splitTypeAndNames(p.args);
  if (split === null || split.names.length !== 1) return usage("You must provide one resource by argument or filename.");
  const type = resourceType(split.type);
  if (type === undefined) return usage(`the server doesn't have a resource type "${split.type}"`);
  const ns = namespaceOf(env, p);
  const target = env.cluster.store.get(type.kind, ns, split.names[0]!) as KubeObject | undefined;
  if (target === undefined) return serverError(env, "NotFound", `${type.plural} "${split.names[0]}" not found`);
  let selector: Record<string, string> | undefined;
  let ports: readonly { containerPort: number; protocol?: string }[] = [];
  if (target.kind === "Pod") {
    selector = target.metadata.labels;
    ports = (target.spec?.containers ?? []).flatMap((c) => c.ports ?? []);
  } else if (target.kind === "Deployment" || target.kind === "ReplicaSet" || target.kind === "DaemonSet") {
    selector = target.spec?.selector?.matchLabels ?? undefined;
    ports = (target.spec?.template?.spec?.containers ?? []).flatMap((c) => c.ports ?? []);
  } else if (target.kind === "Service") selector = target.spec?.selector;
  else return kubectlError(env, `cannot expose a ${target.kind}`);
  const selText = flagString(p, "selector");
  if (selText !== undefined) selector = Object.fromEntries(selText.split(",").map((kv) => kv.split("=") as [string, string]));
  if (selector === undefined || Object.keys(selector).length === 0) return kubectlError(env, `couldn't retrieve selectors via --selector flag or introspection: the ${type.singular} has no selector`);
  const portText = flagString(p, "port");
  const portNumbers = portText !== undefined ? [Number(portText)] : ports.map((x) => x.containerPort);
  if (portNumbers.length === 0) return kubectlError(env, "couldn't find port via --port flag or introspection");
  const targetPort = flagString(p, "target-port");
  const svcPorts: ServicePort[] = portNumbers.map((port, i) => ({
    ...(portNumbers.length > 1 ? { name: `port-${i + 1}` } : {}),
    port,
    protocol: flagString(p, "protocol") ?? ports[i]?.protocol ?? "TCP",
    targetPort: targetPort === undefined ? port : /^\d+$/.test(targetPort) ? Number(targetPort) : targetPort,
  }));
  const svcType = flagString(p, "type");
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { creationTimestamp: null, ...(target.metadata.labels === undefined ? {} : { labels: target.metadata.labels }), name: flagString(p, "name") ?? target.metadata.name, ...(flagString(p, "namespace") === undefined ? {} : { namespace: ns }) },
    spec: { ports: svcPorts, selector, ...(svcType === undefined ? {} : { type: svcType }) },
    status: { loadBalancer: {} },
  };
  return finish(env, p, service, "exposed");
}
