// Live mode against the real kernel: namespaces `client` and `emu` joined by a veth; cnisim runs
// inside `emu` (so nothing it sends reaches the machine's interfaces) with an emulated host behind
// the attached veth end; the real `ping` and `curl` in `client` get their answers, and tshark (the oracle) finds
// the frames on the client side well formed: ARP answered, checksums good.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixturePath, liveSkipReason, LiveLab, run, startTcpdump, tsharkFields, waitUntil, type Child } from "./harness.js";

const skip = liveSkipReason();
const CLIENT_MAC = "02:00:00:00:01:01";
const EMU_VETH_MAC = "02:00:00:00:01:02";
/** MAC of the emulated host's eth0 (fixtures/emu-main.ts). */
const EMULATED_MAC = "02:00:5e:00:00:02";

async function startEmulator(lab: LiveLab, ns: string, args: readonly string[]): Promise<Child> {
  const emu = lab.spawn(ns, process.execPath, [fixturePath("emu-main.js"), ...args]);
  await waitUntil(
    () => emu.exitCode !== null || emu.stderr.includes("running in real time"),
    () => `the emulator to start: ${emu.stderr.trim()}`,
  );
  assert.equal(emu.exitCode, null, `emulator exited early: ${emu.stderr}`);
  return emu;
}

test("a real ping and curl from another namespace are answered by an emulated host through attach", { skip: skip ?? false }, async () => {
  const lab = new LiveLab("ping");
  try {
    const client = lab.netns("client");
    const emuNs = lab.netns("emu");
    lab.veth(client, "vcli", CLIENT_MAC, emuNs, "vemu", EMU_VETH_MAC);
    lab.ip(client, "addr", "add", "192.0.2.1/24", "dev", "vcli");
    const pcap = join(lab.tempDir(), "client.pcap");
    const dump = await startTcpdump(lab, client, "vcli", pcap);
    lab.txChecksumOff(client, "vcli");
    const emu = await startEmulator(lab, emuNs, ["--iface", "vemu", "--addr", "192.0.2.2/24", "--http", "Hello from the emulator\n"]);

    const ping = lab.exec(client, "ping", ["-n", "-c", "3", "-i", "0.2", "-W", "5", "192.0.2.2"], 30_000);
    assert.match(ping, /3 packets transmitted, 3 received/, ping);
    const body = lab.exec(client, "curl", ["-s", "-m", "10", "http://192.0.2.2/"], 30_000);
    assert.equal(body, "Hello from the emulator\n");

    assert.equal(await emu.interrupt(), 0, emu.stderr);
    assert.match(emu.stdout, /vemu as emu-host\/eth0: in (\d+) frames/);
    const ledger = /packets: (\d+) entered, (\d+) delivered, 0 dropped, (\d+) in flight/.exec(emu.stdout);
    assert.ok(ledger !== null, emu.stdout);
    assert.equal(Number(ledger[1]), Number(ledger[2]) + Number(ledger[3]), "packet conservation, nothing dropped");
    await dump.interrupt();

    const arp = tsharkFields(pcap, "arp.opcode == 2", ["eth.src", "eth.dst", "arp.src.hw_mac", "arp.src.proto_ipv4", "arp.dst.hw_mac", "arp.dst.proto_ipv4"]);
    assert.ok(arp.length >= 1, `no ARP reply on the client side: ${dump.stderr} ${run("tshark", ["-r", pcap, "-n"])}`);
    assert.deepEqual(arp[0], [EMULATED_MAC, CLIENT_MAC, EMULATED_MAC, "192.0.2.2", CLIENT_MAC, "192.0.2.1"]);

    // The emulated server's TCP segments: checksums good (tshark validates them with the option on).
    const tcp = tsharkFields(pcap, "ip.src == 192.0.2.2 && tcp", ["ip.checksum.status", "tcp.checksum.status"]);
    assert.ok(tcp.length >= 3, "handshake, response and close from the emulated server");
    for (const r of tcp) assert.deepEqual(r, ["1", "1"]);
    const replies = tsharkFields(pcap, "icmp.type == 0", ["eth.src", "ip.src", "ip.dst", "ip.checksum.status", "icmp.checksum.status", "icmp.seq", "ip.ttl"]);
    assert.deepEqual(
      replies.map((r) => r[5]),
      ["1", "2", "3"],
      "echo replies for every request",
    );
    for (const r of replies) {
      // tshark's checksum status 1 = Good. TTL 64 is Linux's default for the emulated host's replies.
      assert.deepEqual([r[0], r[1], r[2], r[3], r[4], r[6]], [EMULATED_MAC, "192.0.2.2", "192.0.2.1", "1", "1", "64"]);
    }
    const malformed = tsharkFields(pcap, "_ws.malformed || _ws.expert.severity >= warning", ["frame.number", "_ws.expert.message"]);
    assert.deepEqual(malformed, [], "tshark finds no malformed frames or warnings");
  } finally {
    await lab.close();
  }
});

test("attach names a missing interface and exits 1", { skip: skip ?? false }, async () => {
  const lab = new LiveLab("noif");
  try {
    const ns = lab.netns("emu");
    const emu = lab.spawn(ns, process.execPath, [fixturePath("emu-main.js"), "--iface", "nope0", "--addr", "192.0.2.2/24"]);
    assert.equal(await emu.wait(), 1);
    assert.match(emu.stderr, /cnisim: live capture on nope0: no such interface in this network namespace \(interfaces here: lo;/);
  } finally {
    await lab.close();
  }
});

test("attach says that capturing needs privileges when run as an unprivileged user", { skip: skip ?? false }, async () => {
  const lab = new LiveLab("priv");
  try {
    const ns = lab.netns("emu");
    const emu = lab.spawn(ns, "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, fixturePath("emu-main.js"), "--iface", "lo", "--addr", "192.0.2.2/24"]);
    assert.equal(await emu.wait(), 1, emu.stderr);
    assert.match(emu.stderr, /cnisim: live capture on lo: .*(permission|not permitted).*\(run as root or give node CAP_NET_RAW/i);
  } finally {
    await lab.close();
  }
});
