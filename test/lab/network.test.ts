// A lab with a network (createNetworkLab): the seed's network preparation as a lab script, run
// through `kubectl exec` in pods the lab's controllers created, wired by Calico with addresses from
// its IPAM. Expected text is the seed document's (lines 285-300 and 355-365): "Hello web1"/"Hello
// web2" pages, busybox wget's "Connecting to NAME (CLUSTER-IP:80)" and its progress line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadFiles } from "../../src/k8s/index.js";
import { createNetworkLab, defaultScheduler, LabFiles, NOT_AVAILABLE, runLab } from "../../src/lab/index.js";
import { err } from "../../src/util/result.js";
import { SEED_CLUSTER } from "../controllers/support.js";
import { EXAMPLES, runScript } from "./support.js";
import { ipv4InPrefix, parseIPv4 } from "../../src/util/ip.js";

test("the seed's network preparation runs with kubectl exec through the emulated network", async () => {
  const made = createNetworkLab(await loadFiles([SEED_CLUSTER]), { scheduler: defaultScheduler });
  assert.ok(made.ok, made.ok ? "" : made.error);
  const { cluster, runtime, extensions } = made.value;
  const lines: string[] = [];
  const script = readFileSync(resolve(EXAMPLES, "20-network-prepare.lab"), "utf8");
  const result = runLab(cluster, script, { files: new LabFiles(() => err("no files")), extensions, scriptName: "net.lab" }, { out: (l) => lines.push(l), err: (l) => lines.push(`ERR ${l}`) });
  assert.deepEqual(result.errors, [], lines.join("\n"));
  const step = (text: string) => result.steps.find((s) => s.command.includes(text))!;
  const svc = (name: string): string => cluster.store.get("Service", "web", name)!.spec!.clusterIP!;

  for (const p of cluster.store.list("Pod", { namespace: "web" })) {
    assert.ok(ipv4InPrefix(parseIPv4(p.status!.podIP!)!, parseIPv4("10.224.0.0")!, 16), `${p.metadata.name}: a Calico address, ${p.status!.podIP}`);
    assert.ok(runtime.pod(`web/${p.metadata.name}`) !== undefined, `${p.metadata.name} is wired`);
  }
  const get = step("wget web2.web -O web2-index.html");
  assert.equal(get.exit, 0, get.stderr.join("\n"));
  assert.equal(get.stderr[0], `Connecting to web2.web (${svc("web2")}:80)`);
  assert.equal(get.stderr[2], "web2-index.html      100% |********************************|    11  0:00:00 ETA");
  assert.deepEqual(step("cat web2-index.html").stdout, ["Hello web2"]);
  assert.deepEqual(step("cat /tmp/web1.html").stdout, ["Hello web1"], "from namespace cyh by <svc>.<ns>");
  const rmGet = step("rm index.html;wget web1");
  assert.deepEqual(rmGet.stderr, [
    "rm: can't remove 'index.html': No such file or directory",
    `Connecting to web1 (${svc("web1")}:80)`,
    "saving to 'index.html'",
    "index.html           100% |********************************|    11  0:00:00 ETA",
    "'index.html' saved",
  ]);
  assert.deepEqual(step("curl -s web1").stdout, ["Hello web1"]);
  // nginx's access log (combined format) as `kubectl logs`: the three clients by their pod addresses.
  const podIp = (ns: string, name: string): string => cluster.store.get("Pod", ns, name)!.status!.podIP!;
  const logged = step("kubectl logs web1").stdout.map((l) => [l.split(" ")[0], /"GET (\S+) HTTP\/1\.1" 200 11 "-" "(Wget|curl\/[0-9.]+)"$/.exec(l)?.[2]]);
  assert.deepEqual(logged, [
    [podIp("cyh", "test"), "Wget"],
    [podIp("web", "test"), "Wget"],
    [podIp("web", "web2"), logged[2]![1]],
  ]);
  assert.match(logged[2]![1] ?? "", /^curl\//);
  const dns = runtime.store.list("Pod", { namespace: "kube-system" });
  assert.equal(dns.length, 2, "the coredns Deployment was expanded by the lab's controllers");
  assert.ok(dns.every((p) => p.status?.phase === "Running" && runtime.pod(`kube-system/${p.metadata.name}`) !== undefined));
});

test("without a network the lab says exec is not available", async () => {
  const run = await runScript("kubectl run web1 --image=nginx\nkubectl exec web1 -- echo hi\n");
  assert.ok(run.transcript.includes(`ERR ${NOT_AVAILABLE.exec}`), run.transcript.join("\n"));
});

test("a ConfigMap applied in the lab and mounted at nginx's html folder is what the pod serves", async () => {
  const made = createNetworkLab(await loadFiles([SEED_CLUSTER]), { scheduler: defaultScheduler });
  assert.ok(made.ok, made.ok ? "" : made.error);
  const manifest = [
    "apiVersion: v1",
    "kind: ConfigMap",
    "metadata: {name: page}",
    "data: {index.html: \"Hello from a ConfigMap\\n\"}",
    "---",
    "apiVersion: v1",
    "kind: Pod",
    "metadata: {name: site, labels: {run: site}}",
    "spec:",
    "  containers: [{name: nginx, image: nginx, volumeMounts: [{name: html, mountPath: /usr/share/nginx/html}]}]",
    "  volumes: [{name: html, configMap: {name: page}}]",
  ].join("\n");
  const setup = `kubectl apply -f - <<EOF\n${manifest}\nEOF\nkubectl get cm page\nkubectl run client --image=busybox sleep 3600\n`;
  const lines: string[] = [];
  const { cluster, extensions } = made.value;
  // The pod address is only known once the kubelet started it: run the setup, then fetch by IP.
  const first = runLab(cluster, setup, { files: new LabFiles(() => err("no files")), extensions }, { out: (l) => lines.push(l), err: (l) => lines.push(`ERR ${l}`) });
  assert.deepEqual(first.errors, [], lines.join("\n"));
  assert.ok(lines.includes("configmap/page created"), lines.join("\n"));
  assert.match(lines.find((l) => l.startsWith("page "))!, /^page +1 +\d+s$/);
  const ip = cluster.store.get("Pod", "default", "site")!.status!.podIP!;
  const out: string[] = [];
  runLab(cluster, `kubectl exec client -- wget -q -O - http://${ip}/\n`, { files: new LabFiles(() => err("no files")), extensions, echo: false }, { out: (l) => out.push(l), err: (l) => out.push(`ERR ${l}`) });
  assert.deepEqual(out, ["Hello from a ConfigMap"]);
});
