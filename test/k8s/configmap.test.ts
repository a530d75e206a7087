// ConfigMap (core/v1) and configMap volumes: loading, validation after upstream's ValidateConfigMap /
// ValidateVolumes / ValidateVolumeMounts (each error with FILE:LINE:COL, object and path), unknown
// fields as warnings, and the genuine Kubernetes way to give nginx its page: a ConfigMap mounted at
// /usr/share/nginx/html (one read-only file per key).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadText } from "../../src/k8s/load.js";
import { at, fmt } from "./helpers.js";
import { buildSeedLab, exec } from "../cluster/workloads/lab-cluster.js";

const F = "t.yaml";
const cm = (meta: string): string => ["apiVersion: v1", "kind: ConfigMap", `metadata: ${meta}`, "data:", "  index.html: |", "    Hello from a ConfigMap", "binaryData:", "  logo.bin: AAEC"].join("\n");
const CM = cm("{name: page, namespace: web}");
const pod = (volumes: string, mounts: string): string =>
  ["apiVersion: v1", "kind: Pod", "metadata: {name: site, namespace: web}", "spec:", "  nodeName: worker31.cyh.cloud", "  containers:", "  - name: nginx", "    image: nginx:1.27", `    volumeMounts: ${mounts}`, `  volumes: ${volumes}`].join("\n");

test("a ConfigMap loads with its data and binaryData", () => {
  const r = loadText(cm("{name: page}"), F);
  assert.deepEqual(fmt(r.errors), []);
  assert.deepEqual(fmt(r.warnings), []);
  const obj = r.objects[0]!.object;
  assert.equal(obj.kind, "ConfigMap");
  assert.deepEqual((obj as { data?: unknown }).data, { "index.html": "Hello from a ConfigMap\n" });
});

test("ConfigMap rules: config keys, a key in both data and binaryData, base64", () => {
  const text = ["apiVersion: v1", "kind: ConfigMap", "metadata: {name: bad}", "data:", "  'a b': first", "  dup: second", "binaryData:", "  dup: AAAA", "  raw: '@@@'"].join("\n");
  const r = loadText(text, F);
  assert.equal(r.objects.length, 0);
  assert.deepEqual(fmt(r.errors), [
    `${F}:${at(text, "first")}: ConfigMap default/bad: data[a b]: invalid value "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    `${F}:${at(text, "AAAA")}: ConfigMap default/bad: binaryData[dup]: invalid value "dup": duplicate of key present in data`,
    `${F}:${at(text, "'@@@'")}: ConfigMap default/bad: binaryData[raw]: invalid value: must be base64-encoded bytes`,
  ]);
});

test("an unknown ConfigMap field is a warning, not an error", () => {
  const r = loadText(`${cm("{name: page}")}\nextra: 1`, F);
  assert.equal(r.objects.length, 1);
  assert.equal(r.warnings.length, 1);
  assert.match(fmt(r.warnings)[0]!, /extra/);
});

test("volume rules: a mount names a declared volume; a configMap volume names its ConfigMap; item paths are relative", () => {
  const text = pod("[{name: html, configMap: {items: [{key: index.html, path: /etc/x}]}}]", "[{name: htm, mountPath: /usr/share/nginx/html}]");
  const r = loadText(text, F);
  assert.equal(r.objects.length, 0);
  assert.deepEqual(fmt(r.errors), [
    `${F}:${at(text, "htm,")}: Pod web/site: spec.containers[0].volumeMounts[0].name: not found: "htm"`,
    `${F}:${at(text, "{items")}: Pod web/site: spec.volumes[0].configMap.name: required value`,
    `${F}:${at(text, "/etc/x")}: Pod web/site: spec.volumes[0].configMap.items[0].path: invalid value "/etc/x": must be a relative path`,
  ]);
});

test("duplicate volume names are an error at the second one", () => {
  const text = pod("[{name: html, emptyDir: {}}, {name: html, configMap: {name: page}}]", "[{name: html, mountPath: /data}]");
  assert.deepEqual(fmt(loadText(text, F).errors), [`${F}:${at(text, "html", 3)}: Pod web/site: spec.volumes[1].name: duplicate value "html"`]);
});

test("a ConfigMap mounted at /usr/share/nginx/html gives nginx its page; the mount is read-only", () => {
  const rt = buildSeedLab([CM, pod("[{name: html, configMap: {name: page}}]", "[{name: html, mountPath: /usr/share/nginx/html}]")]);
  const ip = rt.store.get("Pod", "web", "site")!.status!.podIP!;
  const out = exec(rt, "web/test", "wget", "-q", "-O", "-", `http://${ip}/`);
  assert.deepEqual([out.exitCode, out.stdout], [0, ["Hello from a ConfigMap"]]);
  const bin = exec(rt, "web/web2", "curl", "-s", `http://${ip}/logo.bin`);
  assert.equal(bin.exitCode, 0);
  assert.deepEqual(rt.workloads.files("web/site")!.read("/usr/share/nginx/html/logo.bin"), new Uint8Array([0, 1, 2]));
  const w = exec(rt, "web/site", "sh", "-c", "echo hi > /usr/share/nginx/html/index.html");
  assert.deepEqual([w.exitCode, w.stderr], [1, ["sh: can't create /usr/share/nginx/html/index.html: Read-only file system"]]);
});

test("a missing ConfigMap is the kubelet's MountVolume.SetUp message", () => {
  const rt = buildSeedLab([pod("[{name: html, configMap: {name: nope}}]", "[{name: html, mountPath: /usr/share/nginx/html}]")]);
  assert.ok(rt.notices().includes('pod web/site: container nginx: MountVolume.SetUp failed for volume "html" : configmap "nope" not found'), rt.notices().join("\n"));
});
