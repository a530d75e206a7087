// IPAM: Calico's block allocation (affinity, ordinals in order, released ordinals last, a new block
// when full, requested addresses) and flannel's per-node subnets with host-local's round-robin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CalicoBlockIpam, fnv1Hash32 } from "../../src/cni/ipam/calico-blocks.js";
import { NodeSubnetIpam } from "../../src/cni/ipam/node-subnets.js";
import { formatPrefix } from "../../src/cni/ipam/prefix.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { unwrap } from "../../src/util/result.js";

const ip = (s: string): number => s.split(".").reduce((a, o) => a * 256 + Number(o), 0);
const pool = { address: ip("10.224.0.0"), prefixLength: 16 };
const req = (pod: string, node: string, requested: number | null = null) => ({ pod, handle: pod, node, requested });

test("FNV-1 32-bit matches the reference test vectors (Go's hash/fnv New32, which Calico seeds from)", () => {
  assert.equal(fnv1Hash32(""), 0x811c9dc5);
  assert.equal(fnv1Hash32("a"), 0x050c5d7e);
  assert.equal(fnv1Hash32("foobar"), 0x31f0b262);
});

test("a node's first address opens a /26 block: the tunnel takes ordinal 0, pods follow in order", () => {
  const ipam = new CalicoBlockIpam(pool, 26);
  const tunl = unwrap(ipam.assignNodeAddress("worker32", "ipip-tunnel-addr"));
  const [block] = ipam.blocksOf("worker32");
  assert.ok(block);
  assert.equal(tunl, block.address, "tunl0 holds the first address of the block");
  assert.equal(block.address % 64, 0);
  const pods = ["web/a", "web/b", "web/c"].map((p) => unwrap(ipam.assign(req(p, "worker32"))));
  assert.deepEqual(pods.map((a) => a - block.address), [1, 2, 3]);
  assert.equal(ipam.owner(pods[1]!), "web/b");
});

test("a released ordinal goes to the back of the block's free list (libcalico-go allocationBlock.release)", () => {
  const ipam = new CalicoBlockIpam(pool, 26);
  const a = unwrap(ipam.assign(req("x/a", "n1")));
  const b = unwrap(ipam.assign(req("x/b", "n1")));
  assert.equal(ipam.release("x/a"), true);
  const c = unwrap(ipam.assign(req("x/c", "n1")));
  assert.equal(c, b + 1, "the next unused ordinal, not the one just released");
  assert.notEqual(c, a);
});

test("the block search starts at a host-seeded index (same host, same block) and walks on past claimed ones", () => {
  const first = new CalicoBlockIpam(pool, 26);
  const second = new CalicoBlockIpam(pool, 26);
  unwrap(first.assign(req("x/a", "worker31")));
  unwrap(second.assign(req("y/a", "worker31")));
  const b1 = first.blocksOf("worker31")[0]!;
  assert.equal(second.blocksOf("worker31")[0]!.address, b1.address, "same host name, same block");
  const other = new CalicoBlockIpam(pool, 26);
  unwrap(other.assign(req("y/b", "worker32")));
  assert.notEqual(other.blocksOf("worker32")[0]!.address, b1.address, "another host starts elsewhere");
  // Let another node take worker31's block first: the search moves on to the next block.
  const taken = new CalicoBlockIpam(pool, 26);
  unwrap(taken.assign(req("z/squat", "squatter", b1.address + 5)));
  unwrap(taken.assign(req("z/a", "worker31")));
  const next = b1.address + 64 === pool.address + 65536 ? pool.address : b1.address + 64;
  assert.equal(taken.blocksOf("worker31")[0]!.address, next);
});

test("a full block makes the node claim another one", () => {
  const ipam = new CalicoBlockIpam(pool, 30);
  for (let i = 0; i < 5; i++) unwrap(ipam.assign(req(`x/p${i}`, "n1")));
  assert.equal(ipam.blocksOf("n1").length, 2);
});

test("requested addresses: honoured when free and inside the pool, else an error naming the pod", () => {
  const ipam = new CalicoBlockIpam(pool, 26);
  assert.equal(unwrap(ipam.assign(req("web/web1", "worker32", ip("10.224.193.67")))), ip("10.224.193.67"));
  assert.equal(formatPrefix(ipam.blocksOf("worker32")[0]!), "10.224.193.64/26", "the block is claimed for the node");
  const taken = ipam.assign(req("web/other", "worker32", ip("10.224.193.67")));
  assert.ok(!taken.ok);
  if (!taken.ok) assert.equal(`${taken.error.subject}: ${taken.error.reason}`, "pod web/other: requested address 10.224.193.67 is already in use by web/web1");
  const outside = ipam.assign(req("web/far", "worker32", ip("10.225.0.1")));
  assert.ok(!outside.ok);
  if (!outside.ok) assert.match(outside.error.reason, /outside the IP pool 10\.224\.0\.0\/16/);
  const foreign = ipam.assign(req("web/x", "worker31", ip("10.224.193.70")));
  assert.ok(!foreign.ok);
  if (!foreign.ok) assert.match(foreign.error.reason, /block 10\.224\.193\.64\/26 of node worker32/);
  // The same pod asking again (the kubelet's handle ns/name/uid) keeps its address.
  assert.equal(unwrap(ipam.assign({ pod: "web/web1", handle: "web/web1/uid-1", node: "worker32", requested: ip("10.224.193.67") })), ip("10.224.193.67"));
});

test("flannel: node i gets the i-th /24; cni0 is .1, pods .2 up, host-local continues round-robin after a release", () => {
  const ipam = new NodeSubnetIpam({ address: ip("10.244.0.0"), prefixLength: 16 }, 24, ["master", "w1", "w2"]);
  assert.deepEqual(["master", "w1", "w2"].map((n) => formatPrefix(ipam.subnetOf(n)!)), ["10.244.0.0/24", "10.244.1.0/24", "10.244.2.0/24"]);
  assert.equal(formatIPv4(ipam.gatewayOf("w1")), "10.244.1.1");
  const a = unwrap(ipam.assign(req("x/a", "w1")));
  const b = unwrap(ipam.assign(req("x/b", "w1")));
  assert.deepEqual([a, b].map(formatIPv4), ["10.244.1.2", "10.244.1.3"]);
  ipam.release("x/a");
  assert.equal(formatIPv4(unwrap(ipam.assign(req("x/c", "w1")))), "10.244.1.4");
  const bad = ipam.assign(req("x/d", "w1", ip("10.244.2.9")));
  assert.ok(!bad.ok);
  if (!bad.ok) assert.equal(`${bad.error.subject}: ${bad.error.reason}`, "pod x/d: requested address 10.244.2.9 is outside node w1's subnet 10.244.1.0/24");
});
