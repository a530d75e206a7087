// A small FIB for eBPF-mode forwarding (the answer bpf_fib_lookup gives Cilium/Calico): destination
// prefix -> output interface and the MACs to write, filled by the control plane from the node's routes
// and neighbours. Used to send encapsulated and NAT'ed packets straight out of the host netdev.
import type { DatapathCtx } from "../ctx.js";
import { MapError } from "../maps/errors.js";
import { LpmTrieMap } from "../maps/lpm.js";
import { DropReason } from "../reasons.js";
import { writeMacWords } from "./l3.js";

const IFINDEX = 0;
const SMAC_HI = 1;
const SMAC_LO = 2;
const DMAC_HI = 3;
const DMAC_LO = 4;
const VALUE_WORDS = 5;

export class FibMap {
  readonly lpm: LpmTrieMap;

  constructor(maxEntries = 4096) {
    this.lpm = new LpmTrieMap({ keyBits: 32, valueWords: VALUE_WORDS, maxEntries, noPrealloc: true });
  }

  /** Packets to prefix/len leave through `ifindex` with these MACs. 0 ok, else a MapError code. */
  upsertV4(prefix: number, prefixLen: number, ifindex: number, srcMac: number, dstMac: number): number {
    if (!Number.isInteger(ifindex) || ifindex <= 0 || !isMac(srcMac) || !isMac(dstMac)) return MapError.INVALID;
    const slot = this.lpm.upsert32(prefix, prefixLen);
    if (slot < 0) return -slot;
    const v = this.lpm.values;
    v[slot * VALUE_WORDS + IFINDEX] = ifindex;
    v[slot * VALUE_WORDS + SMAC_HI] = Math.floor(srcMac / 0x100000000);
    v[slot * VALUE_WORDS + SMAC_LO] = srcMac >>> 0;
    v[slot * VALUE_WORDS + DMAC_HI] = Math.floor(dstMac / 0x100000000);
    v[slot * VALUE_WORDS + DMAC_LO] = dstMac >>> 0;
    return 0;
  }

  deleteV4(prefix: number, prefixLen: number): boolean {
    return this.lpm.delete32(prefix, prefixLen);
  }

  /** Slot of the longest prefix containing addr, or -1. */
  lookupV4(addr: number): number {
    return this.lpm.lookup32(addr);
  }

  ifindex(slot: number): number {
    return this.lpm.values[slot * VALUE_WORDS + IFINDEX]!;
  }

  srcMac(slot: number): number {
    const v = this.lpm.values;
    return v[slot * VALUE_WORDS + SMAC_HI]! * 0x100000000 + v[slot * VALUE_WORDS + SMAC_LO]!;
  }

  dstMac(slot: number): number {
    const v = this.lpm.values;
    return v[slot * VALUE_WORDS + DMAC_HI]! * 0x100000000 + v[slot * VALUE_WORDS + DMAC_LO]!;
  }
}

/**
 * Looks up the route to `dst`, writes the Ethernet addresses at the frame start and chooses the output
 * interface (ctx.fibIfindex). 0 ok, DropReason.NO_FIB when no route is known.
 */
export function fibForward(ctx: DatapathCtx, dst: number): number {
  const fib = ctx.maps.fib;
  const slot = fib.lookupV4(dst);
  if (slot < 0) {
    ctx.site = "datapath/lib/fib:no-route";
    return DropReason.NO_FIB;
  }
  const bytes = ctx.skb.data;
  const at = ctx.skb.head;
  const v = fib.lpm.values;
  writeMacWords(bytes, at, v[slot * VALUE_WORDS + DMAC_HI]!, v[slot * VALUE_WORDS + DMAC_LO]!);
  writeMacWords(bytes, at + 6, v[slot * VALUE_WORDS + SMAC_HI]!, v[slot * VALUE_WORDS + SMAC_LO]!);
  ctx.fibIfindex = v[slot * VALUE_WORDS + IFINDEX]!;
  return 0;
}

function isMac(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 0xffffffffffff;
}
