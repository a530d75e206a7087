// The built `cnisim` executable runs `reach` on the seed lab with policy 01 as a child process: the JSON
// has the documented shape, and web/test reaches web1 on TCP 80 while cyh/test is dropped by policy (133).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const main = resolve(dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.js");
const lab = (rel: string): string => resolve(process.cwd(), "examples/seed-lab", rel);

describe("cnisim reach (child process)", () => {
  it("prints the JSON matrix for one small probe", () => {
    const stdout = execFileSync(
      process.execPath,
      [main, "reach", "-f", lab("cluster.yaml"), lab("workloads.yaml"), lab("policies/01-ingress-from-pods-run-test.yaml"), "-n", "web",
        "--from", "web/test,cyh/test", "--to", "web/web1", "--port", "80/TCP", "-o", "json"],
      { encoding: "utf8" },
    );
    assert.deepEqual(JSON.parse(stdout), {
      probes: [
        {
          port: 80,
          protocol: "TCP",
          from: ["web/test", "cyh/test"],
          to: ["web/web1"],
          allowed: [[true], [false]],
          outcome: [["connected"], ["dropped:133"]],
        },
      ],
    });
  });

  it("exits 2 naming an unknown endpoint", () => {
    let status = 0;
    let stderr = "";
    try {
      execFileSync(process.execPath, [main, "reach", "-f", lab("cluster.yaml"), lab("workloads.yaml"), "-n", "web", "--to", "web/nope"], { encoding: "utf8", stdio: "pipe" });
    } catch (e) {
      const x = e as { status: number; stderr: string };
      status = x.status;
      stderr = x.stderr;
    }
    assert.equal(status, 2);
    assert.match(stderr, /web\/nope/);
  });

  it("exits 2 when a port is given twice (80 is 80/TCP)", () => {
    let status = 0;
    let stderr = "";
    try {
      execFileSync(process.execPath, [main, "reach", "-f", lab("cluster.yaml"), lab("workloads.yaml"), "-n", "web", "--port", "80", "--port", "80/TCP"], { encoding: "utf8", stdio: "pipe" });
    } catch (e) {
      const x = e as { status: number; stderr: string };
      status = x.status;
      stderr = x.stderr;
    }
    assert.equal(status, 2);
    assert.equal(stderr, 'cnisim: --port "80/TCP": 80/TCP is given twice\n');
  });
});
