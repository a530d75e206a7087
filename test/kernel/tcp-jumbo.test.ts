// A bulk TCP transfer over a veth of MTU 65535, kernel vs model, compared on the packets the sender's
// veth transmits (tcpdump sees GSO super-packets whole):
//  - the first flight is two segments of 32,741 bytes: the SYN-ACK offered a 65,483-byte window and
//    tcp_sync_mss keeps the MSS within half the largest window seen (tcp_bound_to_half_wnd);
//  - once the window grows, segments reach the full MSS, 65,535 - 40 - 12 = 65,483 bytes;
//  - no packet is longer than 65,535 bytes: with an MSS above sk_gso_max_size / 2 every skb holds one
//    segment (a two-segment super-packet could not say its length in the IP header).
// The packet-size sequence in between follows the application's writes and is not compared. The model
// runs over an Ethernet link (10 Gbit/s, 50 us) rather than its zero-delay veth: its receive-buffer
// autotuning needs a measurable RTT to grow the window past 2 x 65,483, as the kernel's did on the veth.

import { test } from "node:test";
import assert from "node:assert/strict";
import { TcpStack } from "../../src/net/tcp/index.js";
import { read16 } from "../../src/wire/bytes.js";
import { unwrap } from "../../src/util/result.js";
import { KernelLab, kernelSkipReason } from "./harness/lab.js";
import { KernelCapture } from "./harness/capture.js";
import { waitUntil } from "./harness/wait.js";
import { bulkWriter, Capture, ip, linked } from "../net/tcp/topology.js";

const MTU = 65535;
const BYTES = 8 * 1024 * 1024;
const skip = kernelSkipReason();

/** IPv4 total length and TCP payload length of each TCP data frame (Ethernet frames, no options in IP). */
function dataPackets(frames: readonly Uint8Array[]): { ipLen: number; payload: number }[] {
  const out: { ipLen: number; payload: number }[] = [];
  for (const f of frames) {
    if (f.length < 54 || read16(f, 12) !== 0x0800 || f[23] !== 6) continue;
    const ipLen = read16(f, 16);
    const payload = ipLen - 20 - (f[14 + 20 + 12]! >> 4) * 4;
    if (payload > 0) out.push({ ipLen, payload });
  }
  return out;
}

const SERVER = `
import socket
s = socket.socket(); s.bind(("10.99.0.2", 5201)); s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
while c.recv(1 << 20): pass
`;
const CLIENT = `
import socket, sys
s = socket.socket(); s.connect(("10.99.0.2", 5201))
s.sendall(bytes(int(sys.argv[1])))
s.close()
print("sent", flush=True)
`;

async function kernelRun(): Promise<{ ipLen: number; payload: number }[]> {
  const lab = new KernelLab("tcpj");
  try {
    const a = lab.netns("a");
    const b = lab.netns("b");
    lab.veth(a, "va", "02:00:00:00:0a:01", b, "vb", "02:00:00:00:0b:01", MTU);
    lab.ip(a, "addr", "add", "10.99.0.1/24", "dev", "va");
    lab.ip(b, "addr", "add", "10.99.0.2/24", "dev", "vb");
    let listening = false;
    lab.spawnPython(b, SERVER).stdout?.on("data", (d: Buffer) => (listening ||= d.toString().includes("listening")));
    await waitUntil(() => listening, "the kernel's TCP server to listen");
    const cap = await KernelCapture.start(lab, a, "va", "out");
    let sent = false;
    lab.spawnPython(a, CLIENT, [String(BYTES)]).stdout?.on("data", (d: Buffer) => (sent ||= d.toString().includes("sent")));
    await waitUntil(() => sent, "the kernel's client to send 8 MB", 20_000);
    // tcpdump may lose frames at this rate: wait until what it wrote stops growing, not for every byte.
    let seen = -1;
    await waitUntil(async () => {
      const n = (await cap.frames()).length;
      const still = n === seen;
      seen = n;
      return still;
    }, "the capture to settle", 20_000);
    return dataPackets(await cap.stop());
  } finally {
    await lab.close();
  }
}

function modelRun(): { ipLen: number; payload: number }[] {
  const t = linked({ mtu: MTU, queueBytes: 1000 * (MTU + 14) });
  const cap = Capture.on(t.ea);
  unwrap(TcpStack.of(t.b).listen(5201, (s) => {
    s.events = { onEnd: (r) => r.close() };
  }));
  const pump = bulkWriter(new Uint8Array(BYTES), 1 << 20);
  unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, { onConnect: pump, onWritable: pump }));
  t.world.sim.run();
  return dataPackets(cap.frames.map((f) => f.bytes));
}

test("MTU 65535 bulk TCP: half-window first segments, then full 65,483-byte segments, never over 65,535 bytes", { skip: skip ?? false, timeout: 60_000 }, async () => {
  const kernel = await kernelRun();
  const model = modelRun();
  for (const [who, pkts] of [["kernel", kernel], ["model", model]] as const) {
    assert.ok(pkts.length >= 50, `${who}: ${pkts.length} data packets`);
    assert.deepEqual(pkts.slice(0, 2).map((p) => p.payload), [32741, 32741], `${who}: the first flight`);
    assert.ok(pkts.every((p) => p.ipLen <= 65535), `${who}: a packet over 65,535 bytes`);
    assert.equal(Math.max(...pkts.map((p) => p.payload)), 65483, `${who}: the full MSS`);
    const full = pkts.filter((p) => p.payload === 65483).length;
    assert.ok(full >= pkts.length / 2, `${who}: ${full} of ${pkts.length} packets carry a full MSS`);
  }
});
