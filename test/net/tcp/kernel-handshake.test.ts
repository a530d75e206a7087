// The model's TCP against frames the Linux kernel sent (kernel-tcp.ts, made by kernel-capture.sh):
// the same curl-style exchange over a veth (SYN, SYN-ACK, ACK, request, ACK, response, ACK, FIN,
// FIN, ACK) and a SYN to a closed port answered with RST+ACK, compared byte for byte except the
// values Linux draws at random (ISN, IP ID start, client port, timestamp clock offset) and the TCP
// checksum (the kernel's veth frames carry a partial checksum). Sequence and acknowledgment numbers
// are compared relative to each side's ISN, timestamps by whether they echo the peer's. Also: the
// SYN's window scale with this kernel's 32 MB tcp_rmem, and a handshake over a 9000-byte MTU.

import { test } from "node:test";
import assert from "node:assert/strict";
import { TcpStack, TcpError, type TcpErrorInfo } from "../../../src/net/tcp/index.js";
import { verifyL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { read16, read32 } from "../../../src/wire/bytes.js";
import { unwrap } from "../../../src/util/result.js";
import { Capture, assertConserved, fromHex, ip, vethPair, type Frame } from "./topology.js";
import { HTTP_EXCHANGE, JUMBO_HANDSHAKE, SYN_UNANSWERED } from "./kernel-tcp.js";

const ETH = 14;

interface Parsed {
  readonly fromClient: boolean;
  readonly masked: string;
  readonly seq: number;
  readonly ack: number;
  readonly ipId: number;
  readonly tsVal: number | null;
  readonly tsEcr: number | null;
  readonly payload: Uint8Array;
}

/** Frame fields: direction, masked bytes (random values zeroed), raw seq/ack/ipid/TS. */
function parse(bytes: Uint8Array): Parsed {
  const b = bytes.slice();
  const l3 = ETH;
  const l4 = l3 + (b[l3]! & 15) * 4;
  const doff = (b[l4 + 12]! >>> 4) * 4;
  const fromClient = read32(b, l3 + 12) === ip("10.9.0.1");
  const seq = read32(b, l4 + 4);
  const ack = read32(b, l4 + 8);
  const ipId = read16(b, l3 + 4);
  let tsVal: number | null = null;
  let tsEcr: number | null = null;
  for (let i = l4 + 20; i < l4 + doff; ) {
    const kind = b[i]!;
    if (kind === 0) break;
    if (kind === 1) {
      i++;
      continue;
    }
    if (kind === 8) {
      tsVal = read32(b, i + 2);
      tsEcr = read32(b, i + 6);
      b.fill(0, i + 2, i + 10);
    }
    i += b[i + 1]!;
  }
  b.fill(0, l3 + 4, l3 + 6); // IP ID
  b.fill(0, l3 + 10, l3 + 12); // IP header checksum (follows from the ID)
  b.fill(0, fromClient ? l4 : l4 + 2, fromClient ? l4 + 2 : l4 + 4); // the client's port
  b.fill(0, l4 + 4, l4 + 12); // seq, ack
  b.fill(0, l4 + 16, l4 + 18); // TCP checksum
  return { fromClient, masked: Buffer.from(b).toString("hex"), seq, ack, ipId, tsVal, tsEcr, payload: bytes.subarray(l4 + doff) };
}

/** Relative seq/ack per direction (seq - own ISN, ack - peer ISN), as tcpdump shows them. */
function relative(frames: Parsed[]): string[] {
  const syn = frames.find((f) => f.fromClient)!;
  const synAck = frames.find((f) => !f.fromClient)!;
  return frames.map((f) => {
    const own = f.fromClient ? syn.seq : synAck.seq;
    const peer = f.fromClient ? synAck.seq : syn.seq;
    return `${f.fromClient ? "c" : "s"} seq ${(f.seq - own) >>> 0} ack ${f.ack === 0 ? 0 : (f.ack - peer) >>> 0}`;
  });
}

/** Runs the capture's exchange in the model: curl's request, the server's answer, close both ways. */
function modelExchange(): { frames: Frame[]; refused: TcpErrorInfo | null; world: ReturnType<typeof vethPair>["world"] } {
  const kernel = HTTP_EXCHANGE.map((f) => parse(fromHex(f.hex)));
  const request = kernel.find((f) => f.fromClient && f.payload.length > 0)!.payload;
  const response = kernel.find((f) => !f.fromClient && f.payload.length > 0)!.payload;
  const t = vethPair();
  const cap = Capture.on(t.va, true);
  const client = TcpStack.of(t.a);
  const server = TcpStack.of(t.b);
  server.listen(80, (sock) => {
    sock.events = {
      onData: (s) => void s.send(response),
      onEnd: (s) => s.close(),
    };
  });
  let refused: TcpErrorInfo | null = null;
  client.connect(ip("10.9.0.2"), 80, {
    onConnect: (s) => void s.send(request),
    onData: (s) => s.close(),
    onClose: () => {
      client.connect(ip("10.9.0.2"), 81, { onClose: (_s, e) => (refused = e) });
    },
  });
  t.world.sim.run();
  return { frames: cap.tcp(), refused, world: t.world };
}

test("handshake, request/response and close: the kernel's bytes, flags, windows and options", () => {
  const kernel = HTTP_EXCHANGE.map((f) => parse(fromHex(f.hex)));
  const run = modelExchange();
  const model = run.frames.map((f) => parse(f.bytes));
  assert.equal(model.length, kernel.length, "frame count");
  const k1 = kernel.slice(0, 10);
  const m1 = model.slice(0, 10);
  assert.deepEqual(m1.map((f) => f.masked), k1.map((f) => f.masked));
  assert.deepEqual(relative(m1), relative(k1));
  // The closed port: SYN, then the stack's RST+ACK.
  assert.deepEqual(model.slice(10).map((f) => f.masked), kernel.slice(10).map((f) => f.masked));
  assert.equal(run.refused?.kind, TcpError.REFUSED);
  assert.equal(run.refused?.errno, "ECONNREFUSED");
  assertConserved(run.world);
});

test("random fields behave as Linux's: SYN-ACK and stack resets use IP ID 0, a socket counts its IDs up, timestamps echo", () => {
  const model = modelExchange().frames.map((f) => parse(f.bytes));
  const kernel = HTTP_EXCHANGE.map((f) => parse(fromHex(f.hex)));
  for (const frames of [kernel, model]) {
    const client = frames.slice(0, 10).filter((f) => f.fromClient);
    const server = frames.slice(0, 10).filter((f) => !f.fromClient);
    assert.equal(server[0]!.ipId, 0, "SYN-ACK IP ID");
    client.forEach((f, i) => assert.equal(f.ipId, (client[0]!.ipId + i) & 0xffff, `client IP ID ${i}`));
    server.slice(1).forEach((f, i) => assert.equal(f.ipId, (server[1]!.ipId + i) & 0xffff, `server IP ID ${i}`));
    assert.equal(frames[11]!.ipId, 0, "RST IP ID");
    // Every timestamp echo names the peer's latest value.
    assert.equal(frames[0]!.tsEcr, 0);
    assert.equal(frames[1]!.tsEcr, frames[0]!.tsVal);
    assert.equal(frames[2]!.tsEcr, frames[1]!.tsVal);
    assert.equal(frames[4]!.tsEcr, frames[3]!.tsVal);
  }
  for (const f of modelExchange().frames) {
    const l4 = ETH + 20;
    assert.ok(verifyL4ChecksumV4(f.bytes, l4, f.bytes.length - l4, 6, read32(f.bytes, ETH + 12), read32(f.bytes, ETH + 16)), "TCP checksum");
  }
});

test("tcp_rmem max 32 MB (this kernel's default) makes the SYN offer window scale 10", () => {
  const kernelSyn = parse(fromHex(SYN_UNANSWERED[0]!.hex));
  const t = vethPair();
  const cap = Capture.on(t.va);
  const tcp = TcpStack.of(t.a);
  tcp.sysctl.rmem = [4096, 131072, 33554432];
  t.a.neigh.addStatic(t.va, ip("10.9.0.99"), 0x020000000099);
  tcp.connect(ip("10.9.0.99"), 80);
  t.world.sim.runUntil(1e6);
  const syn = parse(cap.tcp()[0]!.bytes);
  assert.equal(syn.masked, kernelSyn.masked);
});

test("MTU 9000: MSS 8960 and the windows Linux rounds to it, in SYN, SYN-ACK and ACK", () => {
  const t = vethPair(1, 9000);
  const cap = Capture.on(t.va, true);
  unwrap(TcpStack.of(t.b).listen(8080, (s) => s.close()));
  unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 8080, { onConnect: (s) => s.close() }));
  t.world.sim.run();
  const model = cap.tcp().slice(0, 3).map((f) => parse(f.bytes));
  const kernel = JUMBO_HANDSHAKE.map((f) => parse(fromHex(f.hex)));
  assert.equal(kernel.length, 3);
  assert.deepEqual(model.map((f) => f.masked), kernel.map((f) => f.masked));
});
