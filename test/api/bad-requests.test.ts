// Requests the API refuses get Kubernetes Status bodies with the right code and reason, at the HTTP
// level too (oversized heads, clients that stall, garbage), and the server keeps answering afterwards.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { SEED_FILES, serveFiles, type Served } from "./serve-fixture.js";

let served: Served;

before(async () => {
  served = await serveFiles(SEED_FILES, 30e9, { headersTimeoutMs: 300, requestTimeoutMs: 600, checkIntervalMs: 50 });
});

after(async () => served.close());

interface Status {
  kind: string;
  apiVersion: string;
  status: string;
  message: string;
  reason: string;
  code: number;
  details?: { name?: string; kind?: string; group?: string };
}

async function get(path: string, init: RequestInit = {}): Promise<{ status: number; body: Status }> {
  const r = await fetch(served.url + path, init);
  return { status: r.status, body: (await r.json()) as Status };
}

/** Sends raw bytes on a new connection and returns everything the server sends before closing. */
function raw(bytes: string, holdOpen = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(served.server.port, "127.0.0.1");
    let got = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (got += d));
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
    socket.write(bytes);
    if (!holdOpen) socket.end();
  });
}

function statusOf(response: string): { code: number; body: Status } {
  const code = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
  return { code, body: JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4)) as Status };
}

const stillServing = async (): Promise<void> => {
  const r = await fetch(`${served.url}/version`);
  assert.equal(r.status, 200);
  assert.equal(((await r.json()) as { gitVersion: string }).gitVersion, "v1.30.2");
};

test("an unknown path: 404 NotFound Status", async () => {
  for (const path of ["/nope", "/api/v2", "/apis/apps/v1/nodes", "/api/v1/pods/web1", "/api/v1/namespaces/web/pods/web1/log"]) {
    const r = await get(path);
    assert.equal(r.status, 404, path);
    assert.deepEqual([r.body.kind, r.body.apiVersion, r.body.status, r.body.reason, r.body.code], ["Status", "v1", "Failure", "NotFound", 404], path);
  }
});

test("a missing object: 404 naming the resource and object as the API server does", async () => {
  const pod = await get("/api/v1/namespaces/web/pods/nope");
  assert.equal(pod.body.message, 'pods "nope" not found');
  assert.deepEqual(pod.body.details, { name: "nope", kind: "pods" });
  const dep = await get("/apis/apps/v1/namespaces/web/deployments/nope");
  assert.equal(dep.body.message, 'deployments.apps "nope" not found');
  assert.deepEqual(dep.body.details, { name: "nope", group: "apps", kind: "deployments" });
});

test("malformed selectors and parameters: 400 BadRequest with upstream's wording", async () => {
  const cases: [string, RegExp][] = [
    ["/api/v1/pods?labelSelector=" + encodeURIComponent("run in (web1"), /^unable to parse requirement/],
    ["/api/v1/pods?labelSelector=" + encodeURIComponent("-bad-=x"), /^unable to parse requirement/],
    ["/api/v1/pods?fieldSelector=spec.nodeName", /^invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'$/],
    ["/api/v1/pods?fieldSelector=spec.color%3Dblue", /^field label not supported: spec\.color$/],
    ["/api/v1/nodes?includeObject=Everything", /^includeObject: unsupported value "Everything"/],
    ["/api/v1/namespaces/%zz/pods", /^malformed path/],
  ];
  for (const [path, message] of cases) {
    const r = await get(path, { headers: { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } });
    assert.equal(r.status, 400, path);
    assert.equal(r.body.reason, "BadRequest", path);
    assert.match(r.body.message, message, path);
  }
});

test("writes, watches and unacceptable media types are refused with Status bodies", async () => {
  const post = await get("/api/v1/namespaces/web/pods", { method: "POST", body: JSON.stringify({ kind: "Pod" }), headers: { "content-type": "application/json" } });
  assert.deepEqual([post.status, post.body.reason], [405, "MethodNotAllowed"]);
  const del = await get("/api/v1/namespaces/web/pods/web1", { method: "DELETE" });
  assert.deepEqual([del.status, del.body.reason], [405, "MethodNotAllowed"]);
  const watch = await get("/api/v1/pods?watch=true");
  assert.deepEqual([watch.status, watch.body.reason], [405, "MethodNotAllowed"]);
  const proto = await get("/api/v1/pods", { headers: { accept: "application/vnd.kubernetes.protobuf" } });
  assert.deepEqual([proto.status, proto.body.reason], [406, "NotAcceptable"]);
  await stillServing();
});

test("a request head over the limit: 431 Status, connection closed, server still up", async () => {
  const head = `GET /version HTTP/1.1\r\nHost: x\r\nX-Padding: ${"a".repeat(64 * 1024)}\r\n\r\n`;
  const { code, body } = statusOf(await raw(head));
  assert.equal(code, 431);
  assert.deepEqual([body.kind, body.reason, body.code], ["Status", "RequestHeaderFieldsTooLarge", 431]);
  await stillServing();
});

test("a client that stalls mid-head gets 408 Status while others are served", async () => {
  const slow = raw("GET /version HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n", true);
  await stillServing();
  const { code, body } = statusOf(await slow);
  assert.equal(code, 408);
  assert.deepEqual([body.kind, body.reason, body.code], ["Status", "Timeout", 408]);
  await stillServing();
});

test("garbage instead of HTTP: 400 Status", async () => {
  const { code, body } = statusOf(await raw("HELLO THERE\r\n\r\n"));
  assert.equal(code, 400);
  assert.equal(body.reason, "BadRequest");
  await stillServing();
});
