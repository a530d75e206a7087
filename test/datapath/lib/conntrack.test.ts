// The conntrack state machine against Cilium's documented behaviour (bpf/lib/conntrack.h, node_config.h
// lifetimes): SYN 60 s until a non-SYN packet, then 6 h; non-TCP 60 s; FIN from both sides or an RST
// before the handshake -> 10 s; SYN on a closed entry reopens; expiry; RELATED ICMP errors; counters.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { IPPROTO_ICMP, IPPROTO_TCP, IPPROTO_UDP, setL4ChecksumV4 } from "../../../src/wire/checksum.js";
import { CtDir, CtLifetime, CtStatus, ctCreate, ctLookup } from "../../../datapath/lib/conntrack.js";
import { parsePacket } from "../../../datapath/lib/parse.js";
import { CT_VALUE_WORDS, CtFlag, CtValue } from "../../../datapath/maps/conntrack.js";
import { readU64 } from "../../../datapath/maps/words.js";
import { ACK, FIN_ACK, POD_A, POD_B, RST, SYN, SYN_ACK, buildFrame, node1, skbOf, type Node } from "../programs/fixtures.js";

const SEC = 1e9;

/** Runs the lookup on an endpoint's egress (0) or ingress (1) side at time `now`, creating the entry when NEW. */
function track(n: Node, frame: Uint8Array, dir: 0 | 1, now: number): number {
  const ctx = n.ctx;
  ctx.begin(skbOf(frame), 1, true, 0, now, 0);
  assert.equal(parsePacket(ctx), 0);
  const status = ctLookup(ctx, dir);
  if (status === CtStatus.NEW) assert.equal(ctCreate(ctx, dir), 0);
  return status;
}

const aToB = (flags: number) => buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_TCP, sport: 40000, dport: 80, tcpFlags: flags });
const bToA = (flags: number) => buildFrame({ src: POD_B, dst: POD_A, proto: IPPROTO_TCP, sport: 80, dport: 40000, tcpFlags: flags });

function entry(n: Node): { expires: number; flags: number; seen: number; tx: number; rx: number } {
  const ct = n.maps.ct;
  const slot = ct.table.nextSlot(-1);
  assert.ok(slot >= 0);
  const v = ct.values;
  const b = slot * CT_VALUE_WORDS;
  return {
    expires: ct.expiresAt(slot), flags: v[b + CtValue.FLAGS]!, seen: v[b + CtValue.TCP_FLAGS_SEEN]!,
    tx: readU64(v, b + CtValue.TX_PACKETS), rx: readU64(v, b + CtValue.RX_PACKETS),
  };
}

describe("conntrack state machine", () => {
  it("TCP: 60 s while only SYNs were seen, 6 h after the first non-SYN packet; flags per direction", () => {
    const n = node1();
    assert.equal(track(n, aToB(SYN), 0, 1 * SEC), CtStatus.NEW);
    assert.equal(entry(n).expires, 1 * SEC + CtLifetime.SYN);
    assert.equal(track(n, bToA(SYN_ACK), 1, 2 * SEC), CtStatus.REPLY);
    assert.equal(entry(n).expires, 2 * SEC + 60 * SEC, "a SYN-ACK is still a SYN");
    assert.equal(track(n, aToB(ACK), 0, 3 * SEC), CtStatus.ESTABLISHED);
    const e = entry(n);
    assert.equal(e.expires, 3 * SEC + 21600 * SEC);
    assert.equal(e.seen, SYN | ACK | (SYN_ACK << 8));
    assert.equal(e.flags & CtFlag.SEEN_NON_SYN, CtFlag.SEEN_NON_SYN);
    assert.deepEqual([e.tx, e.rx], [2, 1]);
  });

  it("non-TCP flows live 60 s from their last packet, and an expired entry is a new flow", () => {
    const n = node1();
    const udp = buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_UDP, sport: 5000, dport: 53 });
    assert.equal(track(n, udp, 0, 0), CtStatus.NEW);
    assert.equal(track(n, udp, 0, 59 * SEC), CtStatus.ESTABLISHED);
    assert.equal(entry(n).expires, 119 * SEC);
    assert.equal(track(n, udp, 0, 119 * SEC), CtStatus.NEW, "expires at exactly last use + 60 s");
  });

  it("FIN from both sides closes with the 10 s close timeout; a new SYN then reopens", () => {
    const n = node1();
    track(n, aToB(SYN), 0, 0);
    track(n, bToA(SYN_ACK), 1, 1);
    track(n, aToB(ACK), 0, 2);
    track(n, aToB(FIN_ACK), 0, 10 * SEC);
    assert.equal(entry(n).flags & CtFlag.TX_CLOSING, CtFlag.TX_CLOSING);
    assert.equal(entry(n).expires, 10 * SEC + CtLifetime.TCP, "one side closing keeps the entry alive");
    track(n, bToA(FIN_ACK), 1, 11 * SEC);
    assert.equal(entry(n).flags & (CtFlag.RX_CLOSING | CtFlag.TX_CLOSING), CtFlag.RX_CLOSING | CtFlag.TX_CLOSING);
    assert.equal(entry(n).expires, 11 * SEC + CtLifetime.CLOSE);
    assert.equal(track(n, aToB(SYN), 0, 12 * SEC), CtStatus.REOPENED);
    assert.equal(entry(n).flags & (CtFlag.RX_CLOSING | CtFlag.TX_CLOSING), 0);
  });

  it("an RST before both SYNs were seen closes both directions at once", () => {
    const n = node1();
    track(n, aToB(SYN), 0, 0);
    track(n, bToA(RST | ACK), 1, 5 * SEC);
    assert.equal(entry(n).flags & (CtFlag.RX_CLOSING | CtFlag.TX_CLOSING), CtFlag.RX_CLOSING | CtFlag.TX_CLOSING);
    assert.equal(entry(n).expires, 5 * SEC + 10 * SEC);
  });

  it("ingress entries: the reply at the other side's egress is REPLY (IN entry found in reverse)", () => {
    const n = node1();
    assert.equal(track(n, aToB(SYN), 1, 0), CtStatus.NEW);
    assert.equal(track(n, bToA(SYN_ACK), 0, 1), CtStatus.REPLY);
    assert.equal(track(n, bToA(SYN_ACK), 1, 2), CtStatus.NEW, "not a reply of an OUT entry");
  });

  it("an ICMP error quoting a tracked datagram is RELATED; quoting an unknown one is NEW", () => {
    const n = node1();
    const udp = buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_UDP, sport: 5000, dport: 53, payload: 4 });
    track(n, udp, 0, 0);
    const icmpFor = (quoted: Uint8Array): Uint8Array => {
      const q = quoted.subarray(14, 14 + 28);
      const f = buildFrame({ src: POD_B, dst: POD_A, proto: IPPROTO_ICMP, icmpType: 3, payload: q.length });
      f[34] = 3;
      f[35] = 3;
      f.fill(0, 36, 42); // checksum and unused rest-of-header
      f.set(q, 42);
      setL4ChecksumV4(f, 34, 8 + q.length, IPPROTO_ICMP, POD_B, POD_A);
      return f;
    };
    assert.equal(track(n, icmpFor(udp), 1, 1), CtStatus.RELATED);
    const other = buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_UDP, sport: 5001, dport: 53, payload: 4 });
    const ctx = n.ctx;
    ctx.begin(skbOf(icmpFor(other)), 1, true, 0, 2, 0);
    assert.equal(parsePacket(ctx), 0);
    assert.equal(ctLookup(ctx, CtDir.INGRESS), CtStatus.NEW);
  });
});
