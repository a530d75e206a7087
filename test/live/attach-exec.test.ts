// `cnisim attach --exec 'POD -- CMD'` (and capture's): commands run in the pods (as kubectl exec) before
// the real interfaces open or the recording starts; a malformed spec is a usage error (exit 2), a missing pod or a failing command
// stops attach (exit 1). No root needed: these stop before any interface is opened.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const CNISIM = join(dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const FILES = ["cluster.yaml", "workloads.yaml"].map((f) => resolve(process.cwd(), "examples/seed-lab", f));

const attach = (...args: string[]) => spawnSync(process.execPath, [CNISIM, "attach", "-f", ...FILES, ...args], { encoding: "utf8" });

test("a malformed --exec is a usage error naming it", () => {
  const r = attach("--iface", "nosuch0", "--as", "ext/client", "--exec", "web/web1 echo");
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, `cnisim: --exec "web/web1 echo": expected 'POD -- COMMAND ...'\n`);
});

test("--exec in a pod that does not exist stops attach (exit 1)", () => {
  const r = attach("--iface", "nosuch0", "--as", "ext/client", "--exec", "web/nope -- echo hi");
  assert.equal(r.status, 1);
  assert.match(r.stderr, /cnisim: --exec: no pod "web\/nope" with a network \(have: .*web\/web1.*\)/);
});

test("--exec runs before the interfaces open: its output, then the interface error", () => {
  const r = attach("--iface", "nosuch0", "--as", "ext/client", "--exec", "web/web1 -- bash -c 'echo Hello web1 > /usr/share/nginx/html/index.html && cat /usr/share/nginx/html/index.html'");
  assert.equal(r.status, 1);
  const lines = r.stderr.split("\n");
  const hello = lines.indexOf("Hello web1");
  assert.ok(hello >= 0, r.stderr);
  assert.ok(lines.slice(hello + 1).some((l) => l.includes("nosuch0")), r.stderr);
});

test("a failing --exec command stops attach with its exit code", () => {
  const r = attach("--iface", "nosuch0", "--as", "ext/client", "--exec", "web/test -- cat /nothing");
  assert.equal(r.status, 1);
  assert.ok(r.stderr.includes("cat: can't open '/nothing': No such file or directory\ncnisim: --exec web/test: command terminated with exit code 1\n"), r.stderr);
});

test("capture takes --exec too: the command runs before the recording starts; a missing pod stops it (exit 1)", () => {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-capture-exec-"));
  const file = join(dir, "web1.pcapng");
  const r = spawnSync(
    process.execPath,
    [CNISIM, "capture", "-f", ...FILES, "--at", "web/web1", "--write", file, "--fast", "--duration", "1s", "--exec", "web/web1 -- sh -c 'echo Hello web1 > /usr/share/nginx/html/index.html && cat /usr/share/nginx/html/index.html'"],
    { encoding: "utf8" },
  );
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stderr.split("\n");
  assert.ok(lines.indexOf("Hello web1") >= 0 && lines.indexOf("Hello web1") < lines.findIndex((l) => l.startsWith("cnisim: recorded")), r.stderr);
  const bad = spawnSync(process.execPath, [CNISIM, "capture", "-f", ...FILES, "--at", "web/web1", "--write", file, "--fast", "--duration", "1s", "--exec", "web/nope -- echo hi"], { encoding: "utf8" });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /cnisim: --exec: no pod "web\/nope" with a network/);
});

test("capture refuses to record one interface twice (exit 2): every frame would be written twice", () => {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-capture-twice-"));
  const r = spawnSync(process.execPath, [CNISIM, "capture", "-f", ...FILES, "--at", "web/web1", "--at", "web/web1", "--write", join(dir, "x.pcapng"), "--fast", "--duration", "10ms"], { encoding: "utf8" });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, "cnisim: --at web/web1: the interface --at web/web1 already records\n");
});
