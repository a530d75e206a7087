// The demultiplexer's direct-mapped connection slots against the binding's map they stand in front
// of: random remote ends sharing slots, with the map changing (connections added and removed, each
// change clearing the slots as the binding does), and, through the stack, streams sharing a server
// port and a connection replaced by a new one with the same remote end after an abort.

import { test } from "node:test";
import assert from "node:assert/strict";
import { ConnectionSlots } from "../../../src/net/tcp/connection-slots.js";
import { TcpStack, type TcpSocket } from "../../../src/net/tcp/index.js";
import { SeededRng } from "../../../src/util/rng.js";
import { unwrap } from "../../../src/util/result.js";
import { ip, linked } from "./topology.js";

/** Just the fields the slots read. */
function fakeSocket(remoteAddr: number, remotePort: number): TcpSocket {
  return { remoteAddr, remotePort } as TcpSocket;
}

test("a slot answers only with the connection the map holds for that remote end", () => {
  const rng = new SeededRng(7);
  const slots = new ConnectionSlots();
  const map = new Map<number, TcpSocket>();
  const key = (addr: number, port: number): number => addr * 65536 + port;
  const addrs = [ip("10.0.0.1"), ip("10.0.0.2"), ip("192.168.7.200"), ip("255.255.255.254")];
  let hits = 0;
  for (let i = 0; i < 200_000; i++) {
    const addr = addrs[Math.floor(rng.nextFloat() * addrs.length)]!;
    const port = 40_000 + Math.floor(rng.nextFloat() * 40);
    const r = rng.nextFloat();
    if (r < 0.01) {
      // The invalidating events: the map changes (a new connection, or one replaced or removed).
      if (rng.nextFloat() < 0.5) map.set(key(addr, port), fakeSocket(addr, port));
      else map.delete(key(addr, port));
      slots.clear();
      continue;
    }
    const expected = map.get(key(addr, port));
    const found = slots.find(addr, port);
    if (found !== null) {
      hits++;
      assert.equal(found, expected);
    } else if (expected !== undefined) {
      slots.remember(expected);
    }
  }
  assert.ok(hits > 10_000, `slots used (${hits})`);
});

test("streams sharing a server port, and a connection replaced after an abort, each reach their own socket", () => {
  const t = linked({ bandwidthBps: 10e9, latencyNs: 20_000 });
  const received = new Map<number, number>();
  const servers: TcpSocket[] = [];
  unwrap(TcpStack.of(t.b).listen(5201, (sock) => {
    servers.push(sock);
    sock.events = { onReceive: (s, n) => received.set(s.remotePort, (received.get(s.remotePort) ?? 0) + n), onEnd: (s) => s.close() };
  }));
  const data = new Uint8Array(200_000);
  const open = (srcPort: number, bytes: number, end: boolean): TcpSocket => {
    let sent = 0;
    const write = (s: TcpSocket): void => {
      sent += s.send(data, 0, Math.min(data.length, bytes - sent));
      if (sent === bytes && end) s.end();
    };
    return unwrap(TcpStack.of(t.a).connect(ip("10.9.0.2"), 5201, { onConnect: write, onWritable: write }, { srcPort }));
  };
  for (let i = 0; i < 8; i++) open(41_000 + 2 * i, 150_000 + 10_000 * i, true);
  const first = open(42_000, 100_000, false);
  t.world.sim.schedule(2_000_000, () => first.abort());
  let second: TcpSocket | null = null;
  t.world.sim.schedule(3_000_000, () => {
    received.set(42_000, 0);
    second = open(42_000, 120_000, true);
  });
  t.world.sim.run();
  for (let i = 0; i < 8; i++) assert.equal(received.get(41_000 + 2 * i), 150_000 + 10_000 * i);
  assert.equal(received.get(42_000), 120_000, "the new connection's data reached the new socket");
  assert.equal(servers.length, 10);
  assert.notEqual(second, null);
});
