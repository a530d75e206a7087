// HTTP over the model's TCP: the nginx-like server and the curl / busybox wget client. A GET
// returns the body ("Hello web1", or nginx's 615-byte welcome page), other paths 404 with nginx's
// page; a closed port, a REJECT, an unanswered SYN and a reset each give the outcome and message
// the real tools print (curl 7.88+, busybox wget); everything is checked against the wire too.

import { test } from "node:test";
import assert from "node:assert/strict";
import { iptablesRestore } from "../../../src/net/netfilter/index.js";
import { DnsServer, HttpServer, HttpTool, NGINX_WELCOME_PAGE, Resolver, httpGet, podResolvConf, type HttpResult } from "../../../src/cluster/workloads/index.js";
import { unwrap } from "../../../src/util/result.js";
import { Capture, assertConserved, ip, routed, vethPair } from "../../net/tcp/topology.js";
import { tsharkFields, tsharkMissing } from "./tshark.js";

const text = (b: Uint8Array): string => new TextDecoder().decode(b);

function get(setup: ReturnType<typeof vethPair>, options: Parameters<typeof httpGet>[1]): HttpResult {
  let result: HttpResult | null = null;
  httpGet(setup.a, options, (r) => (result = r));
  setup.world.sim.run();
  assert.ok(result !== null, "the client finished");
  return result;
}

test("GET / returns the configured body with nginx's headers; curl closes first", async () => {
  const t = vethPair();
  const cap = Capture.on(t.va, true);
  unwrap(new HttpServer(t.b, { body: "Hello web1\n" }).start());
  const r = get(t, { host: "10.9.0.2" });
  assert.equal(r.kind, "response");
  if (r.kind !== "response") return;
  assert.equal(r.status, 200);
  assert.equal(text(r.body), "Hello web1\n");
  const headers = new Map(r.headers);
  assert.equal(headers.get("server"), "nginx/1.27.3");
  assert.equal(headers.get("content-length"), "11");
  assert.equal(headers.get("connection"), "keep-alive");
  assert.equal(headers.get("date"), "Wed, 01 Jan 2025 00:00:00 GMT");
  assertConserved(t.world);
  const missing = tsharkMissing();
  if (missing !== null) return;
  const rows = await tsharkFields(cap.tcp().map((f) => f.bytes), ["tcp.flags.str", "http.request.method", "http.response.code", "http.file_data"]);
  const flags = rows.map((r) => r[0]!.replace(/·/g, "").trim());
  // SYN, SYN-ACK, ACK, request, ACK, response, ACK, FIN from curl, FIN from nginx, last ACK.
  assert.deepEqual(flags, ["S", "AS", "A", "AP", "A", "AP", "A", "AF", "AF", "A"]);
  assert.equal(rows[3]![1], "GET");
  assert.equal(rows[5]![2], "200");
  assert.equal(rows[5]![3], "Hello web1\n".replace("\n", "\\n"));
});

test("the default page is nginx's 615-byte welcome page; busybox wget asks the server to close", () => {
  const t = vethPair();
  const cap = Capture.on(t.va, true);
  unwrap(new HttpServer(t.b).start());
  const r = get(t, { host: "10.9.0.2", tool: HttpTool.WGET });
  assert.equal(r.kind, "response");
  if (r.kind !== "response") return;
  assert.equal(r.body.length, 615);
  assert.equal(text(r.body), NGINX_WELCOME_PAGE);
  assert.equal(new Map(r.headers).get("connection"), "close");
  // nginx closes first: the first FIN comes from port 80.
  const firstFin = cap.tcp().find((f) => (f.bytes[14 + 20 + 13]! & 1) !== 0)!;
  assert.equal((firstFin.bytes[34]! << 8) | firstFin.bytes[35]!, 80);
});

test("other paths: 404 with nginx's error page", () => {
  const t = vethPair();
  unwrap(new HttpServer(t.b).start());
  const r = get(t, { host: "10.9.0.2", path: "/missing" });
  assert.equal(r.kind, "response");
  if (r.kind !== "response") return;
  assert.equal(r.status, 404);
  assert.equal(text(r.body), "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.27.3</center>\r\n</body>\r\n</html>\r\n");
});

test("no server: refused, with curl's and wget's messages", () => {
  const curl = get(vethPair(), { host: "10.9.0.2" });
  assert.equal(curl.kind, "refused");
  if (curl.kind === "refused") assert.equal(curl.message, "curl: (7) Failed to connect to 10.9.0.2 port 80 after 0 ms: Couldn't connect to server");
  const wget = get(vethPair(), { host: "10.9.0.2", tool: HttpTool.WGET });
  if (wget.kind === "refused") assert.equal(wget.message, "wget: can't connect to remote host (10.9.0.2): Connection refused");
  else assert.fail(`wget: ${wget.kind}`);
});

test("a DROP rule: timeout after the connect timeout; a REJECT: refused", () => {
  const dropped = vethPair();
  unwrap(iptablesRestore(dropped.b.netfilter, "*filter\n-A INPUT -p tcp --dport 80 -j DROP\nCOMMIT\n", { noflush: true }));
  unwrap(new HttpServer(dropped.b).start());
  const r = get(dropped, { host: "10.9.0.2", connectTimeoutNs: 5e9 });
  assert.equal(r.kind, "timeout");
  if (r.kind === "timeout") assert.equal(r.message, "curl: (28) Failed to connect to 10.9.0.2 port 80 after 5000 ms: Timeout was reached");
  const rejected = vethPair();
  unwrap(iptablesRestore(rejected.b.netfilter, "*filter\n-A INPUT -p tcp --dport 80 -j REJECT\nCOMMIT\n", { noflush: true }));
  unwrap(new HttpServer(rejected.b).start());
  assert.equal(get(rejected, { host: "10.9.0.2" }).kind, "refused");
});

test("a large body crosses a routed path with a slow link intact", () => {
  const t = routed({ bandwidthBps: 100e6, latencyNs: 500_000 });
  const body = "0123456789abcdef".repeat(64 * 1024);
  unwrap(new HttpServer(t.s, { body }).start());
  let result: HttpResult | null = null;
  httpGet(t.c, { host: "10.2.0.2" }, (r) => (result = r));
  t.world.sim.run();
  const r = result as HttpResult | null;
  assert.equal(r?.kind, "response");
  if (r?.kind !== "response") return;
  assert.equal(r.body.length, body.length);
  assert.equal(text(r.body), body);
  // 1 MiB over 100 Mbit/s takes at least 84 ms of serialization.
  assert.ok(r.timings.doneNs > 84e6, `done after ${r.timings.doneNs / 1e6} ms`);
  assertConserved(t.world);
});

test("by name: the pod resolver finds the service, an unknown name is curl's error (6)", () => {
  const t = vethPair();
  unwrap(new HttpServer(t.b, { body: "Hello web1\n" }).start());
  unwrap(new DnsServer(t.b, { namespaces: ["default"], services: [{ name: "web", namespace: "default", clusterIP: ip("10.9.0.2") }] }).start());
  const resolver = new Resolver(t.a, podResolvConf("default", ip("10.9.0.2")));
  const ok = get(t, { host: "web", resolver });
  assert.equal(ok.kind, "response");
  if (ok.kind === "response") assert.equal(text(ok.body), "Hello web1\n");
  const t2 = vethPair();
  unwrap(new DnsServer(t2.b, { namespaces: ["default"], services: [] }).start());
  const missing = get(t2, { host: "nothing", resolver: new Resolver(t2.a, podResolvConf("default", ip("10.9.0.2"))), tool: HttpTool.WGET });
  assert.equal(missing.kind, "dns");
  if (missing.kind === "dns") assert.equal(missing.message, "wget: bad address 'nothing'");
});

test("the access log: one line per answered request in nginx's `combined` format, with the address the socket saw", () => {
  const t = vethPair();
  const server = new HttpServer(t.b, { body: "Hello web1\n" });
  unwrap(server.start());
  get(t, { host: "10.9.0.2" });
  get(t, { host: "10.9.0.2", path: "/missing", tool: HttpTool.WGET });
  // log_format combined '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent
  // "$http_referer" "$http_user_agent"' (nginx's ngx_http_log_module documentation); no user and no
  // referer are logged as "-"; $body_bytes_sent counts the body only.
  assert.equal(server.accessLog.length, 2);
  assert.match(server.accessLog[0]!, /^10\.9\.0\.1 - - \[01\/Jan\/2025:00:00:00 \+0000\] "GET \/ HTTP\/1\.1" 200 11 "-" "curl\/[0-9.]+"$/);
  assert.match(server.accessLog[1]!, /^10\.9\.0\.1 - - \[01\/Jan\/2025:00:0\d:\d\d \+0000\] "GET \/missing HTTP\/1\.1" 404 \d+ "-" "Wget"$/);
});
