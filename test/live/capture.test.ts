// TapCapture writes what emulated devices send and receive as pcapng with one named interface per
// point; tshark (the oracle) reads the file back with those names, the frames and their times.
// Also the live command-line options.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TapCapture } from "../../src/cli/commands/capture.js";
import { parseLiveOptions, type LiveCliOptions } from "../../src/cli/commands/attach.js";
import { Simulator } from "../../src/engine/simulator.js";
import { NetNamespace } from "../../src/net/stack/index.js";
import { VethDevice } from "../../src/net/veth.js";
import { NetWorld } from "../../src/net/world.js";
import { PcapngWriter } from "../../src/pcap/index.js";
import { SkBuff } from "../../src/skb/skbuff.js";

function hasTshark(): boolean {
  try {
    execFileSync("tshark", ["-v"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const noTshark = hasTshark() ? false : "tshark is not installed (it is the oracle for the written file)";

test("a capture of two emulated interfaces names them and holds both directions, as tshark reads it", { skip: noTshark }, async () => {
  const dir = mkdtempSync(join(tmpdir(), "cnisim-capture-"));
  try {
    const sim = new Simulator();
    const world = new NetWorld(sim);
    const a = new NetNamespace(world, "a", "node-a");
    const b = new NetNamespace(world, "b", "node-b");
    const [ethA, ethB] = VethDevice.pair(world, "eth0", 0x020000000001, "eth0", 0x020000000002);
    a.addDevice(ethA);
    b.addDevice(ethB);
    a.addAddress(ethA, 0xc0000201, 24);
    b.addAddress(ethB, 0xc0000202, 24);
    const file = join(dir, "out.pcapng");
    const tap = new TapCapture(PcapngWriter.toFile(file), [
      { label: "node/a/eth0", device: ethA },
      { label: "node/b/eth0", device: ethB },
    ]);
    tap.timestamp = (simNs) => 1_700_000_000_000_000_000n + BigInt(simNs);
    // An ARP request for 192.0.2.2 sent by a: a transmits, b receives and answers.
    const arp = Uint8Array.from([
      255, 255, 255, 255, 255, 255, 2, 0, 0, 0, 0, 1, 8, 6, 0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 192, 0, 2, 1, 0, 0, 0, 0, 0, 0, 192, 0, 2, 2,
    ]);
    sim.scheduleAt(5_000, () => ethA.transmit(SkBuff.fromBytes(world.ledger.admit(), arp)));
    sim.runUntil(1_000_000);
    await tap.close();
    assert.equal(tap.frames, 4, "request tx on a + rx on b, reply tx on b + rx on a");
    assert.equal(ethA.taps.length, 0, "close() removes the taps");
    const rows = execFileSync("tshark", ["-r", file, "-n", "-T", "fields", "-E", "separator=|", "-e", "frame.interface_name", "-e", "arp.opcode", "-e", "frame.time_epoch"], {
      encoding: "utf8",
    })
      .trim()
      .split("\n");
    assert.deepEqual(
      rows.map((r) => r.split("|").slice(0, 2).join(" ")),
      ["node/a/eth0 1", "node/b/eth0 1", "node/b/eth0 2", "node/a/eth0 2"],
    );
    assert.match(rows[0]!.split("|")[2]!, /^1700000000\.000005000/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const base: LiveCliOptions = { file: ["x.yaml"], iface: [], as: [], rate: "1.0", maxLag: "20ms" };

test("live options: --iface/--as pairs, rate, lag bound and duration are checked", () => {
  const good = parseLiveOptions({ ...base, iface: ["veth0", "veth1"], as: ["ext/client", "web/web1"], rate: "0.5", maxLag: "5ms", duration: "10s" });
  assert.ok(good.ok);
  assert.deepEqual(good.value.pairs, [
    { iface: "veth0", point: "ext/client" },
    { iface: "veth1", point: "web/web1" },
  ]);
  assert.equal(good.value.rate, 0.5);
  assert.equal(good.value.maxLagNs, 5_000_000);
  assert.equal(good.value.durationNs, 10_000_000_000);
  const errors: [Partial<LiveCliOptions>, RegExp][] = [
    [{ iface: ["veth0"], as: [] }, /every --iface needs an --as \(got 1 --iface, 0 --as\)/],
    [{ iface: ["veth0", "veth0"], as: ["ext/a", "ext/b"] }, /interface veth0 is attached twice/],
    [{ rate: "0" }, /--rate must be a positive number, got "0"/],
    [{ maxLag: "soon" }, /--max-lag: invalid duration "soon"/],
    [{ duration: "5 parsecs" }, /--duration: invalid duration/],
  ];
  for (const [change, message] of errors) {
    const r = parseLiveOptions({ ...base, ...change });
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error, message);
  }
});
