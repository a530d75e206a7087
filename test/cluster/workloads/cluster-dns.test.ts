// The cluster DNS add-on, as kubeadm installs it (kube-dns Service at the service CIDR's tenth
// address, 10.96.0.10; 53/UDP, 53/TCP, 9153/TCP; Deployment coredns with 2 replicas labelled
// k8s-app=kube-dns in kube-system), placed by the scheduler and wired by the CNI; pods resolve through
// it with the kubelet's search path. Seed lab experiment 2: "DNS still resolves, traffic does not
// arrive"; default-deny egress breaks name resolution as in real clusters.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseIPv4, ipv4InPrefix } from "../../../src/util/ip.js";
import { buildSeedLab, exec } from "./lab-cluster.js";
import { TcpStack } from "../../../src/net/tcp/index.js";
import { decodeDns, DnsClass, DnsType, encodeDns, QUERY_FLAGS } from "../../../src/cluster/workloads/dns/message.js";
import { formatIPv4 } from "../../../src/util/ip.js";

const DNS_IP = "10.96.0.10";

describe("cluster DNS add-on", () => {
  const rt = buildSeedLab();
  const web1Svc = rt.store.get("Service", "web", "web1")!.spec!.clusterIP!;

  it("adds kube-system/kube-dns at 10.96.0.10 and the coredns Deployment with two replicas", () => {
    const svc = rt.store.get("Service", "kube-system", "kube-dns");
    assert.equal(svc?.spec?.clusterIP, DNS_IP);
    assert.deepEqual(svc?.spec?.ports?.map((p) => `${p.port}/${p.protocol}`), ["53/UDP", "53/TCP", "9153/TCP"]);
    assert.deepEqual(svc?.spec?.selector, { "k8s-app": "kube-dns" });
    assert.equal(rt.store.get("Deployment", "kube-system", "coredns")?.spec?.replicas, 2);
    assert.equal(rt.clusterDns, parseIPv4(DNS_IP));
  });

  it("its pods are scheduled (never on a node whose taint they do not tolerate) and get CNI addresses", () => {
    const pods = rt.store.list("Pod", { namespace: "kube-system" }).filter((p) => p.metadata.labels?.["k8s-app"] === "kube-dns");
    assert.equal(pods.length, 2);
    for (const p of pods) {
      assert.match(p.metadata.name, /^coredns-[bcdfghjklmnpqrstvwxz2456789]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      assert.ok(["master30.cyh.cloud", "worker31.cyh.cloud", "worker32.cyh.cloud"].includes(p.spec!.nodeName!));
      assert.ok(ipv4InPrefix(parseIPv4(p.status!.podIP!)!, parseIPv4("10.224.0.0")!, 16), p.status!.podIP);
      assert.equal(p.status?.phase, "Running");
    }
    assert.notEqual(pods[0]!.spec!.nodeName, pods[1]!.spec!.nodeName, "preferred anti-affinity on the hostname spreads the replicas");
    const ep = rt.store.get("Endpoints", "kube-system", "kube-dns");
    const addrs = (ep?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip)).sort();
    assert.deepEqual(addrs, pods.map((p) => p.status!.podIP!).sort());
  });

  it("`nslookup web1.web` from web/test resolves to web1's ClusterIP through the search path", () => {
    const out = exec(rt, "web/test", "nslookup", "web1.web");
    assert.equal(out.exitCode, 0, out.stderr.join("\n"));
    assert.deepEqual(out.stdout, ["Server:\t\t10.96.0.10", "Address:\t10.96.0.10:53", "", "Name:\tweb1.web.svc.cluster.local", `Address: ${web1Svc}`, ""]);
  });

  it("`wget web2.web -O web2-index.html` prints busybox's lines with the computed ClusterIP (seed doc)", () => {
    const out = exec(rt, "web/test", "wget", "web2.web", "-O", "web2-index.html");
    const svc = rt.store.get("Service", "web", "web2")!.spec!.clusterIP!;
    assert.equal(out.exitCode, 0);
    assert.equal(out.stderr[0], `Connecting to web2.web (${svc}:80)`);
    assert.match(out.stderr[2]!, /^web2-index\.html {6}100% \|\*{32}\| {3}615  0:00:00 ETA$/);
  });

  it("a name nobody serves is NXDOMAIN; a Service created later resolves at once", () => {
    const miss = exec(rt, "web/test", "nslookup", "late.web");
    assert.equal(miss.exitCode, 1);
    assert.ok(miss.stdout.includes("** server can't find late.web: NXDOMAIN"), miss.stdout.join("\n"));
    rt.store.add({ apiVersion: "v1", kind: "Service", metadata: { name: "late", namespace: "web" }, spec: { selector: { run: "web1" }, ports: [{ port: 80 }] } });
    const ip = rt.store.get("Service", "web", "late")!.spec!.clusterIP!;
    const hit = exec(rt, "cyh/test", "nslookup", "late.web.svc.cluster.local");
    assert.equal(hit.stdout.at(-2), `Address: ${ip}`);
  });

  it("DNS over TCP to the kube-dns ClusterIP: a 2-byte length, then the message (RFC 1035 4.2.2), twice on one connection", () => {
    const answers: string[] = [];
    const query = (id: number): Uint8Array => {
      const m = encodeDns({ id, flags: QUERY_FLAGS, questions: [{ name: "web1.web.svc.cluster.local", type: DnsType.A, class: DnsClass.IN }], answers: [], authority: [], additional: [] });
      const framed = new Uint8Array(m.length + 2);
      framed[0] = m.length >> 8;
      framed[1] = m.length & 0xff;
      framed.set(m, 2);
      return framed;
    };
    let got = new Uint8Array(0);
    const r = TcpStack.of(rt.pod("web/test")!.ns).connect(parseIPv4(DNS_IP)!, 53, {
      onConnect: (s) => {
        const two = new Uint8Array([...query(7), ...query(8)]);
        s.send(two);
      },
      onData: (s, data) => {
        got = new Uint8Array([...got, ...data]);
        while (got.length >= 2 && got.length >= 2 + ((got[0]! << 8) | got[1]!)) {
          const len = (got[0]! << 8) | got[1]!;
          const m = decodeDns(got.subarray(2, 2 + len));
          assert.ok(m.ok);
          const a = m.value.answers[0]?.data;
          answers.push(`${m.value.id} ${a?.kind === "a" ? formatIPv4(a.address) : "-"}`);
          got = got.slice(2 + len);
        }
        if (answers.length === 2) s.close();
      },
    });
    assert.ok(r.ok);
    rt.runFor(2e9);
    assert.deepEqual(answers, [`7 ${web1Svc}`, `8 ${web1Svc}`]);
  });

  it("requestsServed counts the DNS queries the coredns pods answered", () => {
    const keys = rt.pods().filter((p) => p.namespace === "kube-system").map((p) => p.key);
    const total = (): number => keys.reduce((n, k) => n + rt.workloads.requestsServed(k), 0);
    const before = total();
    exec(rt, "web/test", "nslookup", "web1.web");
    // musl asks A and AAAA for web1.web.web.svc.cluster.local (NXDOMAIN) then web1.web.svc.cluster.local.
    assert.equal(total() - before, 4);
  });
});

describe("cluster DNS and NetworkPolicy", () => {
  it("default-deny egress in web: nslookup from web/test times out, from cyh/test it still resolves", () => {
    const rt = buildSeedLab([], ["policies/12-default-deny-egress.yaml"]);
    const denied = exec(rt, "web/test", "nslookup", "web1.web");
    assert.deepEqual([denied.exitCode, denied.stdout[0]], [1, ";; connection timed out; no servers could be reached"]);
    const ok = exec(rt, "cyh/test", "nslookup", "web1.web");
    assert.equal(ok.exitCode, 0);
  });

  it("experiment 2: relabelled web/test still resolves web1.web but its connection never arrives", () => {
    const rt = buildSeedLab([], ["policies/01-ingress-from-pods-run-test.yaml"]);
    exec(rt, "web/web1", "bash", "-c", "echo Hello web1 > /usr/share/nginx/html/index.html");
    const allowed = exec(rt, "web/test", "sh", "-c", "rm index.html;wget web1");
    assert.equal(allowed.exitCode, 0);
    assert.deepEqual(exec(rt, "web/test", "cat", "index.html").stdout, ["Hello web1"]);
    rt.store.modify("Pod", "web", "test", (p) => {
      p.metadata.labels = { run: "web2" };
    });
    const svc = rt.store.get("Service", "web", "web1")!.spec!.clusterIP!;
    const denied = exec(rt, "web/test", "wget", "-T", "5", "-O", "-", "web1.web");
    assert.equal(denied.stderr[0], `Connecting to web1.web (${svc}:80)`, "the name resolved");
    assert.equal(denied.exitCode, 1);
    assert.deepEqual(denied.stdout, []);
  });
});

describe("cluster DNS switched off or brought by the user", () => {
  it("addons.dns: false installs nothing and names do not resolve", () => {
    const rt = buildSeedLab([], [], "addons: {dns: false}");
    assert.equal(rt.store.get("Service", "kube-system", "kube-dns"), undefined);
    assert.equal(rt.store.list("Pod", { namespace: "kube-system" }).length, 0);
    assert.equal(rt.clusterDns, null);
    const out = exec(rt, "web/test", "wget", "web1.web");
    assert.deepEqual([out.exitCode, out.stderr], [1, ["wget: bad address 'web1.web'"]]);
  });

  it("a kube-system/kube-dns Service in the input is the cluster DNS; no coredns is added", () => {
    const own = "apiVersion: v1\nkind: Service\nmetadata: {name: kube-dns, namespace: kube-system}\nspec: {clusterIP: 10.96.0.53, selector: {app: mydns}, ports: [{port: 53, protocol: UDP}]}";
    const rt = buildSeedLab([own]);
    assert.equal(rt.store.get("Deployment", "kube-system", "coredns"), undefined);
    assert.equal(rt.clusterDns, parseIPv4("10.96.0.53"));
  });
});
