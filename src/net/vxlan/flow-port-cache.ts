// A VXLAN device's outer UDP source ports by inner flow: udp_flow_src_port is a pure function of
// the inner flow key (flow-hash.ts) and the device's fixed hash seed and port range, and a tunnel
// carries a few long flows, so each flow's port is computed once and then read back. A small
// direct-mapped table: a slot holds one flow key and its port; another flow hashing to the slot
// replaces it (and is computed afresh), so every answer is the function's own.

import { FlowKey, hashFlowKey, readFlowKey, srcPortFromHash } from "./flow-hash.js";

/** A power of two; the slot comes from the key's words folded to their low bits (flows of one host pair differ in a port). */
const SLOTS = 64;
/** A proto no key has (non-IPv4 keys use -1): marks a slot that holds nothing yet. */
const EMPTY_PROTO = -2;

export class FlowSourcePortCache {
  private readonly protos = new Int32Array(SLOTS).fill(EMPTY_PROTO);
  private readonly as = new Float64Array(SLOTS);
  private readonly bs = new Float64Array(SLOTS);
  private readonly portWords = new Float64Array(SLOTS);
  private readonly sourcePorts = new Int32Array(SLOTS);
  private readonly key = new FlowKey();

  constructor(
    private readonly seed: number,
    private readonly min: number,
    private readonly max: number,
  ) {}

  /** udp_flow_src_port for the Ethernet frame at bytes[off, end). */
  sourcePort(bytes: Uint8Array, off: number, end: number): number {
    const k = this.key;
    readFlowKey(bytes, off, end, k);
    const x = k.a ^ k.b ^ k.ports ^ k.proto;
    const slot = (x ^ (x >>> 16)) & (SLOTS - 1);
    if (this.protos[slot] === k.proto && this.as[slot] === k.a && this.bs[slot] === k.b && this.portWords[slot] === k.ports) {
      return this.sourcePorts[slot]!;
    }
    const port = srcPortFromHash(hashFlowKey(k, this.seed), this.min, this.max);
    this.protos[slot] = k.proto;
    this.as[slot] = k.a;
    this.bs[slot] = k.b;
    this.portWords[slot] = k.ports;
    this.sourcePorts[slot] = port;
    return port;
  }
}
