// IPIP (IPv4 in IPv4) cannot be built in this kernel (no ipip device type), so the model's tunl0 is
// checked against a real IPIP frame instead: zeek's tunnels/4in4.pcap (../shared/pcaps/external),
// outer 1.2.3.4 -> 5.6.7.8 proto 4, inner UDP 10.0.0.1:30000 -> 10.0.0.2:13000, TTL 64, no DF.
//  - decapsulation: the frame arrives at a namespace owning 5.6.7.8; its tunl0 must receive exactly
//    the inner packet (bytes 34.. of the frame).
//  - encapsulation: a namespace owning 1.2.3.4 routes 10.0.0.0/24 via 5.6.7.8 dev tunl0 onlink and
//    sends the inner packet; the frame leaving eth0 must equal the captured one except the outer IP ID
//    (the capture's tool wrote 1; Linux takes it from ip_select_ident) and the header checksum that
//    follows from it. tunl0's defaults (ttl inherit, DF copied from the inner packet, TOS 0) must
//    reproduce the captured outer TTL 64, flags and TOS.

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { IpipDevice } from "../../src/net/ipip.js";
import { openCapture } from "../../src/pcap/open-capture.js";
import { SkBuff } from "../../src/skb/skbuff.js";
import { hex, ip4 } from "./harness/frames.js";
import { ModelLab, must } from "./harness/model.js";
import { diffFrames, formatDiffs, GENERATED_IP_ID } from "./harness/compare.js";

const PCAP = resolve(process.cwd(), "../shared/pcaps/external/zeek-tunnels-4in4.pcap");
const SENDER_MAC = "c8:bc:c8:96:d2:a0";
const RECEIVER_MAC = "00:10:db:88:d2:ef";

async function capturedFrame(): Promise<Uint8Array> {
  for await (const rec of openCapture(PCAP)) return rec.data.slice();
  throw new Error(`${PCAP}: no packet`);
}

const skip = existsSync(PCAP) ? false : `${PCAP} not found (../shared beside the repository)`;

describe("IPIP (tunl0) against a real IPIP frame", { skip }, () => {
  it("decapsulation hands tunl0 exactly the inner packet", async () => {
    const real = await capturedFrame();
    assert.equal(real[23], 4, "outer protocol is IPIP");
    const m = new ModelLab();
    const ns = m.ns("receiver");
    const [wire, eth0] = m.veth(null, "wire", SENDER_MAC, ns, "eth0", RECEIVER_MAC);
    m.addr(ns, eth0, "5.6.7.8/24");
    const tunl0 = new IpipDevice(m.world);
    must(ns.addDevice(tunl0));
    must(tunl0.open());
    const got = m.tap(tunl0, "rx");
    m.send(wire, [real]);
    assert.equal(got.length, 1, "tunl0 received one packet");
    assert.equal(hex(got[0]!), hex(real.subarray(34)));
  });

  it("encapsulation by tunl0 rebuilds the captured frame", async () => {
    const real = await capturedFrame();
    const m = new ModelLab();
    const ns = m.ns("sender");
    const [eth0] = m.veth(ns, "eth0", SENDER_MAC, null, "wire", RECEIVER_MAC);
    m.addr(ns, eth0, "1.2.3.4/24");
    must(ns.routes.add({ dst: ip4("5.6.7.8"), prefixLen: 32, dev: eth0 }));
    m.neigh(ns, eth0, "5.6.7.8", RECEIVER_MAC);
    const tunl0 = new IpipDevice(m.world);
    must(ns.addDevice(tunl0));
    must(tunl0.open());
    must(ns.routes.add({ dst: ip4("10.0.0.0"), prefixLen: 24, via: ip4("5.6.7.8"), dev: tunl0, onlink: true }));
    const sent = m.tap(eth0, "tx");
    ns.outputIp(SkBuff.fromBytes(m.world.ledger.admit(), real.slice(34)));
    m.sim.run();
    assert.equal(sent.length, 1, "eth0 sent one frame");
    const diffs = diffFrames(real, sent[0]!, GENERATED_IP_ID);
    assert.equal(diffs.length, 0, formatDiffs("ipip encap vs zeek 4in4.pcap", diffs));
  });
});
