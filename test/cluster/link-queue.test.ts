// The Cluster file's spec.underlay.link.queue: the NIC transmit queue of every underlay link, in bytes
// (a Kubernetes quantity), counting frames as the wire does (1,514 + 24 bytes of preamble, FCS and gap
// for a full 1500-MTU frame), the one being sent included. Frames that do not fit are tail-dropped with
// QUEUE_FULL; the default is 1,514,000 bytes, as before the field existed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { buildCluster } from "../../src/cluster/build.js";
import { formatClusterError } from "../../src/cluster/errors.js";
import type { ClusterRuntime } from "../../src/cluster/runtime.js";
import { loadText } from "../../src/k8s/load.js";
import { SkBuff } from "../../src/skb/skbuff.js";
import { conformanceYaml } from "./support/clusters.js";

function build(queue: string | null): ClusterRuntime {
  const yaml = conformanceYaml({ plugin: "flannel", mode: "host-gw" });
  const text = queue === null ? yaml : yaml.replace("mtu: 1500}", `mtu: 1500, queue: ${queue}}`);
  const load = loadText(text, "queue.yaml");
  assert.deepEqual(load.errors, []);
  const r = buildCluster(load);
  if (!r.ok) assert.fail(formatClusterError(r.error));
  return r.value;
}

/** Puts `count` 1514-byte frames on node n1's NIC at one instant; returns the link's queue drops. */
function burst(rt: ClusterRuntime, count: number): number {
  const n1 = rt.underlay.nodes.get("n1")!;
  for (let i = 0; i < count; i++) {
    const frame = new Uint8Array(1514);
    frame.fill(0xff, 0, 6); // broadcast, so the switch has somewhere to send it
    frame[12] = 0x88;
    frame[13] = 0xb5; // local experimental EtherType
    n1.eth0.transmit(SkBuff.fromBytes(rt.world.ledger.admit(), frame));
  }
  rt.runUntilIdle();
  return n1.link.stats(n1.eth0).queueDrops;
}

test("queue: 4Ki holds two 1,538-byte wire frames; the rest of a burst of 10 is tail-dropped", () => {
  const rt = build("4Ki");
  assert.equal(rt.underlay.params.queueBytes, 4096);
  const n1 = rt.underlay.nodes.get("n1")!;
  assert.equal(n1.link.params.queueBytes, 4096);
  // The frame on the wire and one waiting take 3,076 of the 4,096 bytes; a third would need 4,614.
  assert.equal(burst(rt, 10), 8);
});

test("the smallest queue the Cluster file accepts (MTU + 38 bytes) holds exactly the full frame on the wire", () => {
  const rt = build("1538");
  assert.equal(rt.underlay.params.queueBytes, 1538);
  assert.equal(burst(rt, 3), 2, "the frame being sent fits, nothing waits beside it");
  const load = loadText(conformanceYaml({ plugin: "flannel", mode: "host-gw" }).replace("mtu: 1500}", "mtu: 1500, queue: 1537}"), "small.yaml");
  assert.equal(load.errors.length, 1);
  assert.equal(load.errors[0]!.path, "spec.underlay.link.queue");
  assert.equal(load.errors[0]!.message, "invalid queue 1537: must hold at least one full frame, 1538 bytes on the wire (MTU 1500 + 14 + 24)");
});

test("the default queue (1,514,000 bytes) takes the same burst whole", () => {
  const rt = build(null);
  assert.equal(rt.underlay.params.queueBytes, 1_514_000);
  assert.equal(burst(rt, 10), 0);
});
