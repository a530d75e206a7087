// Test fixture: the seed lab (plus its kube-system pods and an unschedulable pod) as an emulation
// (LabCluster joined to its network), served on a free loopback port with simulated time frozen unless the test advances it; and a
// runner for the real kubectl against it (async: the server lives in this process).
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { ApiServer, emulationBackend, openEmulation, type ApiServerOptions, type Emulation, type LabBackend, type RequestCounter } from "../../src/api/index.js";
import type { LabCluster } from "../../src/lab/index.js";

export const SEED_FILES = [
  resolve(process.cwd(), "examples/seed-lab"),
  resolve(process.cwd(), "test/metrics/fixtures/system-pods.yaml"),
  resolve(process.cwd(), "test/metrics/fixtures/pending.yaml"),
];

export interface Served {
  readonly em: Emulation;
  readonly lab: LabCluster;
  readonly backend: LabBackend;
  readonly server: ApiServer;
  readonly url: string;
  close(): Promise<void>;
}

/** Opens the files, runs `warmupNs` of simulated time (metrics need two scrapes) and serves them. */
export async function serveFiles(files: readonly string[] = SEED_FILES, warmupNs = 60e9, options: ApiServerOptions = {}, extra: readonly RequestCounter[] = []): Promise<Served> {
  const opened = await openEmulation(files);
  if (!opened.ok) throw new Error(opened.error.join("\n"));
  const em = opened.value;
  const backend = emulationBackend(em, extra);
  em.advance(warmupNs);
  const server = await ApiServer.listen(backend, { port: 0, ...options });
  return {
    em,
    lab: em.lab,
    backend,
    server,
    url: `http://127.0.0.1:${server.port}`,
    close: async () => {
      backend.metrics.stop();
      em.close();
      await server.close();
    },
  };
}

const run = promisify(execFile);

/** Why kubectl tests cannot run here, or null when a kubectl binary answers. */
export function kubectlMissing(): string | null {
  const r = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" });
  if (r.error !== undefined) return `kubectl is not installed (${r.error.message}); install kubectl or Debian's kubernetes-client to run these tests`;
  return r.status === 0 ? null : `kubectl version --client failed: ${r.stderr}`;
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const home = mkdtempSync(join(tmpdir(), "cnisim-kubectl-"));

/** Runs the real kubectl against url with no kubeconfig and a private discovery cache. */
export async function kubectl(url: string, ...args: string[]): Promise<KubectlResult> {
  const argv = ["--server", url, "--request-timeout", "30s", "--cache-dir", join(home, "cache"), ...args];
  try {
    const r = await run("kubectl", argv, { env: { ...process.env, KUBECONFIG: "/dev/null", HOME: home }, encoding: "utf8" });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === "number" ? x.code : -1, stdout: x.stdout ?? "", stderr: x.stderr ?? "" };
  }
}
