// The API server's request costs on the seed lab (with its kube-system pods), and one metrics scrape,
// relative to the cheapest request (/version answered in-process) measured in the same run: what a
// kubectl get (Table), kubectl top (metrics.k8s.io), a Prometheus scrape and a loopback HTTP round
// trip cost next to it.
import { Agent, get } from "node:http";
import { resolve } from "node:path";
import { Bench } from "tinybench";
import { ApiServer, handleRequest, labBackend, openEmulation } from "../src/api/index.js";

const FILES = [resolve(process.cwd(), "examples/seed-lab"), resolve(process.cwd(), "test/metrics/fixtures/system-pods.yaml")];
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";

const opened = await openEmulation(FILES);
if (!opened.ok) throw new Error(opened.error.join("\n"));
const { lab, model } = opened.value;
const backend = labBackend(lab, { model });
lab.advance(60e9);
const server = await ApiServer.listen(backend, { port: 0 });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

const inProcess = (path: string, accept?: string) => async (): Promise<void> => {
  const q = path.indexOf("?");
  const r = await handleRequest(backend, {
    method: "GET",
    path: q < 0 ? path : path.slice(0, q),
    query: new URLSearchParams(q < 0 ? "" : path.slice(q + 1)),
    accept,
    host: "bench",
  });
  if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
};

const overHttp = (path: string) => (): Promise<void> =>
  new Promise((done, fail) => {
    get({ host: "127.0.0.1", port: server.port, path, agent }, (res) => {
      res.resume();
      res.on("end", () => done());
    }).on("error", fail);
  });

const bench = new Bench({ time: 500, warmupTime: 100 });
bench
  .add("baseline: /version in-process", inProcess("/version"))
  .add("get pods -n kube-system (Table)", inProcess("/api/v1/namespaces/kube-system/pods", TABLE))
  .add("get pods -A (JSON)", inProcess("/api/v1/pods"))
  .add("top pod -A (metrics.k8s.io)", inProcess("/apis/metrics.k8s.io/v1beta1/pods"))
  .add("top node (metrics.k8s.io)", inProcess("/apis/metrics.k8s.io/v1beta1/nodes"))
  .add("/metrics (prom-client)", inProcess("/metrics"))
  .add("/version over loopback HTTP", overHttp("/version"))
  .add("metrics-server scrape (accounting)", () => {
    // A repeated scrape at the same instant replaces the newest sample (the window stays).
    backend.metrics.scrape(lab.sim.now);
  });
await bench.run();

/** Operations per second from the mean latency. */
function hz(name: string): number {
  const result = bench.tasks.find((t) => t.name === name)?.result;
  if (result === undefined || !("period" in result)) throw new Error(`bench task ${name} has no result`);
  return 1000 / result.period;
}
const base = hz("baseline: /version in-process");
console.log("| task | ops/s | cost vs baseline |");
console.log("|---|---:|---:|");
for (const t of bench.tasks) {
  const ops = hz(t.name);
  console.log(`| ${t.name} | ${ops.toFixed(0)} | ${(base / ops).toFixed(1)}x |`);
}
agent.destroy();
backend.metrics.stop();
await server.close();
