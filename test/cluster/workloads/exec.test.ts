// `kubectl exec` in emulated pods: the small shell (`;`, `&&`, `||`, `>`/`>>`), busybox's and coreutils'
// file tools, busybox wget and curl errors, iputils ping from an ubuntu pod (the seed document's lines
// 576-587: "PING web1.web.svc.cluster.local (CLUSTER-IP) 56(84) bytes of data.", ttl=62 across nodes
// through IPIP), and images without the tool (`kubectl exec` fails with the runtime's message, 126).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseCommandList } from "../../../src/cluster/containers/exec/shell-words.js";
import { parseExecSpec } from "../../../src/cluster/containers/exec/exec-spec.js";
import { buildSeedLab, exec } from "./lab-cluster.js";

const UBUNTU = "apiVersion: v1\nkind: Pod\nmetadata: {name: ubuntu, namespace: web, labels: {run: test}}\nspec: {nodeName: worker31.cyh.cloud, containers: [{name: ubuntu, image: ubuntu, args: [bash]}]}";

describe("exec: the shell", () => {
  it("parses lists, quotes and redirections; rejects what it does not model", () => {
    const r = parseCommandList(`rm index.html;wget web1 && echo "a  b" > f || echo 'x;y' >> g`);
    assert.ok(r.ok);
    assert.deepEqual(r.commands.map((c) => [c.joiner, c.argv, c.redirect]), [
      [";", ["rm", "index.html"], null],
      [";", ["wget", "web1"], null],
      ["&&", ["echo", "a  b"], { file: "f", append: false }],
      ["||", ["echo", "x;y"], { file: "g", append: true }],
    ]);
    assert.deepEqual(parseCommandList("echo a | wc"), { ok: false, error: '"|" is not supported by cnisim\'s shell' });
    assert.deepEqual(parseCommandList("echo 'open"), { ok: false, error: "unterminated quoted string" });
    assert.equal(parseCommandList("&& echo").ok, false);
  });

  it("attach's --exec spec: pod, container and the command words", () => {
    assert.deepEqual(parseExecSpec("web/web1 -c web1 -- sh -c 'echo Hello web1 > /usr/share/nginx/html/index.html'"), {
      ok: true,
      value: { pod: "web/web1", container: "web1", argv: ["sh", "-c", "echo Hello web1 > /usr/share/nginx/html/index.html"] },
    });
    assert.deepEqual(parseExecSpec("web1 -- echo"), { ok: true, value: { pod: "default/web1", container: undefined, argv: ["echo"] } });
    assert.equal(parseExecSpec("web1 echo").ok, false);
  });

  const rt = buildSeedLab([UBUNTU]);

  it("`;` always runs on, `&&` only after success, `||` only after failure; the exit code is the last one's", () => {
    const out = exec(rt, "web/test", "sh", "-c", "cat nothing; echo one && echo two || echo three; cat nothing || echo four");
    assert.deepEqual(out.stdout, ["one", "two", "four"]);
    assert.deepEqual(out.stderr, ["cat: can't open 'nothing': No such file or directory", "cat: can't open 'nothing': No such file or directory"]);
    assert.equal(out.exitCode, 0);
    assert.equal(exec(rt, "web/test", "sh", "-c", "echo a && cat nothing").exitCode, 1);
  });

  it("`>` truncates and `>>` appends; rm removes", () => {
    exec(rt, "web/test", "sh", "-c", "echo first > /tmp/f; echo second >> /tmp/f");
    assert.deepEqual(exec(rt, "web/test", "cat", "/tmp/f").stdout, ["first", "second"]);
    exec(rt, "web/test", "sh", "-c", "echo third > /tmp/f");
    assert.deepEqual(exec(rt, "web/test", "cat", "/tmp/f").stdout, ["third"]);
    assert.equal(exec(rt, "web/test", "rm", "/tmp/f").exitCode, 0);
    assert.deepEqual(exec(rt, "web/test", "rm", "/tmp/f").stderr, ["rm: can't remove '/tmp/f': No such file or directory"]);
    assert.deepEqual(exec(rt, "web/web1", "rm", "/tmp/f").stderr, ["rm: cannot remove '/tmp/f': No such file or directory"], "coreutils in the Debian nginx image");
  });

  it("an image without the program: the container runtime's error, exit 126; inside sh: 'not found', 127", () => {
    const curl = exec(rt, "web/test", "curl", "web1");
    assert.deepEqual([curl.exitCode, curl.stderr], [126, ['OCI runtime exec failed: exec failed: unable to start container process: exec: "curl": executable file not found in $PATH: unknown']]);
    assert.equal(exec(rt, "web/test", "bash", "-c", "echo").exitCode, 126, "busybox has no bash");
    assert.equal(exec(rt, "web/web1", "wget", "web2").exitCode, 126, "the nginx image has no wget");
    const inner = exec(rt, "web/test", "sh", "-c", "curl web1");
    assert.deepEqual([inner.exitCode, inner.stderr], [127, ["sh: curl: not found"]]);
  });

  it("busybox wget: refuses to overwrite without -O; a 404 is the server's error; a refused port names the address", () => {
    exec(rt, "web/test", "sh", "-c", "echo old > index.html");
    assert.deepEqual(exec(rt, "web/test", "wget", "web1").stderr, ["wget: can't open 'index.html': File exists"]);
    const notFound = exec(rt, "web/test", "wget", "-q", "web1/missing.html");
    assert.deepEqual([notFound.exitCode, notFound.stderr], [1, ["wget: server returned error: HTTP/1.1 404 Not Found"]]);
    const web2 = rt.store.get("Pod", "web", "web2")!.status!.podIP!;
    const refused = exec(rt, "web/test", "wget", "-O", "-", `http://${web2}:8080/`);
    assert.deepEqual(refused.stderr, [`Connecting to ${web2} (${web2}:8080)`, `wget: can't connect to remote host (${web2}): Connection refused`]);
  });

  it("curl: exit 7 for a refused connection, 6 for a name that does not resolve; -s keeps stderr quiet", () => {
    const web2 = rt.store.get("Pod", "web", "web2")!.status!.podIP!;
    const r = exec(rt, "web/web1", "curl", `${web2}:8080`);
    assert.equal(r.exitCode, 7);
    assert.match(r.stderr[0]!, new RegExp(`^curl: \\(7\\) Failed to connect to ${web2.replace(/\./g, "\\.")} port 8080 after \\d+ ms: Couldn't connect to server$`));
    const dns = exec(rt, "web/web1", "curl", "-s", "nosuch");
    assert.deepEqual([dns.exitCode, dns.stderr], [6, []]);
  });

  it("iputils ping from an ubuntu pod on worker31 to web1's pod IP on worker32: ttl=62 across the IPIP overlay", () => {
    const ip = rt.store.get("Pod", "web", "web1")!.status!.podIP!;
    const out = exec(rt, "web/ubuntu", "ping", "-c1", ip);
    assert.equal(out.exitCode, 0);
    assert.equal(out.stdout[0], `PING ${ip} (${ip}) 56(84) bytes of data.`);
    assert.match(out.stdout[1]!, new RegExp(`^64 bytes from ${ip.replace(/\./g, "\\.")}: icmp_seq=1 ttl=62 time=\\d+\\.\\d+ ms$`));
    assert.equal(out.stdout[4], "1 packets transmitted, 1 received, 0% packet loss, time 0ms");
  });

  it("iputils ping to a Service name prints the canonical name and its ClusterIP", () => {
    const svc = rt.store.get("Service", "web", "web1")!.spec!.clusterIP!;
    const out = exec(rt, "web/ubuntu", "ping", "web1", "-c1");
    assert.equal(out.stdout[0], `PING web1.web.svc.cluster.local (${svc}) 56(84) bytes of data.`);
    assert.ok(out.stdout.includes("--- web1.web.svc.cluster.local ping statistics ---"));
    assert.equal(out.exitCode, 1);
  });

  it(
    "a ping to a ClusterIP gets nothing back (seed doc: '1 packets transmitted, 0 received, 100% packet loss, time 0ms'): the gateway forwards it out of the lab",
    () => {
      const out = exec(rt, "web/ubuntu", "ping", "web1", "-c1");
      assert.ok(out.stdout.includes("1 packets transmitted, 0 received, 100% packet loss, time 0ms"), out.stdout.join("\n"));
    },
  );
});
