// Issue 9's acceptance on the seed lab: a real client namespace takes the lab's client address
// 10.1.8.100/24, `cnisim attach` runs inside its own namespace with the veth end as ext/client (the
// plain CLI: the pods' nginx containers run by themselves, and `--exec` writes the lab's pages as the
// lab's `kubectl exec -it web1 -- bash -c 'echo Hello web1 > /usr/share/nginx/html/index.html'` did), and
// real tools in the client namespace talk to the emulated cluster: ping to a pod across Calico's IPIP
// overlay, curl to the web1 NodePort on the hosting node ("Hello web1") and through another node
// (dropped by the ipBlock policy, since that node masquerades the client to its tunnel address).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildClusterFromFiles } from "../../src/cluster/index.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { liveSkipReason, LiveLab, run, waitUntil, type Child } from "./harness.js";

const skip = liveSkipReason() ?? (commandOk("curl") ? null : "`curl` is not installed");
const CNISIM = join(dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const LAB = resolve(process.cwd(), "examples/seed-lab");
const FILES = [join(LAB, "cluster.yaml"), join(LAB, "workloads.yaml"), join(LAB, "policies/05-ingress-from-ipblock.yaml")];
/** worker31 hosts web2 and cyh/test; worker32 hosts web1 and web/test (workloads.yaml). */
const WORKER31 = "10.1.8.31";
const WORKER32 = "10.1.8.32";
const WEB1_NODEPORT = 30790;

function commandOk(cmd: string): boolean {
  try {
    run("sh", ["-c", `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The lab's client namespace (10.1.8.100/24, pod addresses routed through worker31, so a packet to a pod
 * on worker32 crosses the overlay) joined by a veth to a namespace where `cnisim attach` runs as
 * ext/client with `extra` arguments; resolves once it runs in real time.
 */
async function attachClient(lab: LiveLab, files: readonly string[], extra: readonly string[]): Promise<{ client: string; emu: Child }> {
  const client = lab.netns("client");
  const emuNs = lab.netns("emu");
  lab.veth(client, "vcli", "02:00:0a:01:08:64", emuNs, "vemu", "02:00:0a:01:08:fe");
  lab.ip(client, "addr", "add", "10.1.8.100/24", "dev", "vcli");
  lab.ip(client, "route", "add", "10.224.0.0/16", "via", WORKER31);
  lab.txChecksumOff(client, "vcli");
  const emu = lab.spawn(emuNs, process.execPath, [CNISIM, "attach", "-f", ...files, "--iface", "vemu", "--as", "ext/client", "--rate", "1", "--max-lag", "200ms", ...extra]);
  await waitUntil(() => emu.exitCode !== null || emu.stderr.includes("running in real time"), () => `attach to start: ${emu.stderr}`, 60_000);
  assert.equal(emu.exitCode, null, emu.stderr);
  return { client, emu };
}

/** Emulator stdout summary line "packets: ... dropped (REASON n, ...)" -> count of one reason. */
function drops(summary: string, reason: string): number {
  const m = new RegExp(`${reason} (\\d+)`).exec(summary);
  return m === null ? 0 : Number(m[1]);
}

test("seed lab: real ping and curl from the lab's client namespace through the emulated cluster", { skip: skip ?? false }, async (t) => {
  const built = await buildClusterFromFiles(FILES);
  assert.ok(built.ok, built.ok ? "" : built.error.reason);
  const podIp = formatIPv4(built.value.pod("web/test")!.ip);
  const lab = new LiveLab("seed");
  let emu: Child | null = null;
  try {
    // `cnisim attach` as a user runs it: the pages written with --exec, then real time.
    const page = (pod: string): string => `web/${pod} -- bash -c 'echo Hello ${pod} > /usr/share/nginx/html/index.html'`;
    const attached = await attachClient(lab, FILES, ["--exec", page("web1"), "--exec", page("web2")]);
    const client = attached.client;
    const started = attached.emu;
    emu = started;

    await t.test("ping to a pod on worker32 through worker31 crosses the overlay and gets its replies", () => {
      const out = lab.exec(client, "ping", ["-n", "-c", "3", "-i", "0.2", "-W", "5", podIp], 30_000);
      assert.match(out, /3 packets transmitted, 3 received/, out);
    });

    await t.test("curl to the web1 NodePort on the hosting node returns the lab's page", () => {
      const body = lab.exec(client, "curl", ["-s", "-m", "10", `http://${WORKER32}:${WEB1_NODEPORT}/`], 30_000);
      assert.equal(body, "Hello web1\n");
    });

    await t.test("curl to the web1 NodePort through another node is dropped by the ipBlock policy", async () => {
      let exit = 0;
      try {
        lab.exec(client, "curl", ["-s", "-m", "3", `http://${WORKER31}:${WEB1_NODEPORT}/`], 30_000);
      } catch (e) {
        exit = (e as { status?: number }).status ?? -1;
      }
      assert.equal(exit, 28, "curl times out: the SYNs are dropped, not refused");
      const code = await started.interrupt();
      assert.equal(code, 0, started.stderr);
      assert.ok(drops(started.stdout, "POLICY_DENIED") >= 1, started.stdout);
    });
  } finally {
    if (emu !== null && emu.exitCode === null) await emu.interrupt().catch(() => undefined);
    await lab.close();
  }
});

test("seed lab on Calico VXLAN: a real ping to a pod across the VXLAN overlay gets its replies", { skip: skip ?? false }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-live-vxlan-"));
  const cluster = join(dir, "cluster.yaml");
  const text = readFileSync(join(LAB, "cluster.yaml"), "utf8");
  assert.ok(text.includes("mode: ipip"));
  writeFileSync(cluster, text.replace("mode: ipip", "mode: vxlan"));
  const files = [cluster, join(LAB, "workloads.yaml")];
  const built = await buildClusterFromFiles(files);
  assert.ok(built.ok, built.ok ? "" : built.error.reason);
  assert.equal(built.value.plugin.name, "calico-vxlan");
  const podIp = formatIPv4(built.value.pod("web/test")!.ip);
  const lab = new LiveLab("vxlan");
  let emu: Child | null = null;
  try {
    // web/test runs on worker32: through worker31 the echo crosses worker31 -> worker32 in VXLAN.
    const attached = await attachClient(lab, files, []);
    const client = attached.client;
    emu = attached.emu;
    const out = lab.exec(client, "ping", ["-n", "-c", "3", "-i", "0.2", "-W", "5", podIp], 30_000);
    assert.match(out, /3 packets transmitted, 3 received/, out);
  } finally {
    if (emu !== null && emu.exitCode === null) await emu.interrupt().catch(() => undefined);
    await lab.close();
  }
});
