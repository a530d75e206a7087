// 10,000 requests over loopback from a bounded pool of keep-alive connections: every one answered
// with the right status and a body that parses, connections stay bounded and the heap stays flat.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Agent, get } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { SEED_FILES, serveFiles, type Served } from "./serve-fixture.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const TOTAL = 10_000;
const CONCURRENCY = 16;
const PATHS: readonly [string, number, string | undefined][] = [
  ["/api/v1/namespaces/web/pods", 200, undefined],
  ["/api/v1/namespaces/kube-system/pods", 200, "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"],
  ["/apis/metrics.k8s.io/v1beta1/nodes", 200, undefined],
  ["/apis/metrics.k8s.io/v1beta1/namespaces/kube-system/pods", 200, undefined],
  ["/version", 200, undefined],
  ["/api/v1/namespaces/web/pods/nope", 404, undefined],
  ["/api/v1/pods?labelSelector=a%20in%20(", 400, undefined],
  ["/metrics", 200, undefined],
];

let served: Served;
before(async () => {
  served = await serveFiles(SEED_FILES, 30e9);
});
after(async () => served.close());

function request(agent: Agent, path: string, accept: string | undefined): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port: served.server.port, path, agent, headers: accept === undefined ? {} : { accept } }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

const heapMb = (): number => {
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

test("10,000 requests, 16 at a time: none lost, connections bounded, heap flat", async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  let answered = 0;
  const wrong: string[] = [];
  let maxConnections = 0;
  let heapAt2k = 0;
  const worker = async (): Promise<void> => {
    while (next < TOTAL) {
      const i = next++;
      const [path, status, accept] = PATHS[i % PATHS.length]!;
      const r = await request(agent, path, accept);
      answered++;
      // Every body is complete (Content-Length held); one in ten is parsed in full.
      const parses =
        path === "/metrics"
          ? r.body.endsWith("\n") && r.body.includes("# TYPE cnisim_node_cpu_usage_seconds_total counter")
          : r.body.startsWith("{") && r.body.endsWith("}") && (i % 10 !== 0 || typeof JSON.parse(r.body) === "object");
      if (r.status !== status || !parses) wrong.push(`${i} ${path}: ${r.status}`);
      if (i % 1000 === 0) maxConnections = Math.max(maxConnections, await served.server.connections());
      if (i === 2000) heapAt2k = heapMb();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const heapAtEnd = heapMb();
  agent.destroy();
  assert.equal(answered, TOTAL);
  assert.deepEqual(wrong, []);
  assert.ok(maxConnections <= CONCURRENCY, `${maxConnections} connections`);
  assert.ok(heapAtEnd - heapAt2k < 16, `heap grew from ${heapAt2k.toFixed(1)} MiB to ${heapAtEnd.toFixed(1)} MiB over 8,000 requests`);
});
