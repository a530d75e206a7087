// Fragments without reassembly: the kernel defragments before conntrack, so every fragment of a
// datagram shares one connection and one state. The model tracks the first fragment (it carries
// the ports) and remembers its entry by (src, dst, id, protocol) for the later fragments of the
// same datagram (for ipfrag_time, 30 s, or until the last fragment).

const SLOTS = 64;
const FRAG_TIME_NS = 30_000_000_000;

export class FragmentMemory {
  private readonly key = new Float64Array(SLOTS * 3);
  private readonly entry = new Float64Array(SLOTS);
  private readonly state = new Uint32Array(SLOTS);
  private readonly expires = new Float64Array(SLOTS);
  private next = 0;

  /** Remembers the connection (skb.ctEntry value and ctState) of a datagram's first fragment. */
  remember(src: number, dst: number, idProto: number, ctEntry: number, ctState: number, now: number): void {
    const k = this.next;
    this.next = (k + 1) % SLOTS;
    this.key[3 * k] = src;
    this.key[3 * k + 1] = dst;
    this.key[3 * k + 2] = idProto;
    this.entry[k] = ctEntry;
    this.state[k] = ctState;
    this.expires[k] = now + FRAG_TIME_NS;
  }

  /** The slot of a later fragment's datagram, or -1. */
  find(src: number, dst: number, idProto: number, now: number): number {
    for (let k = 0; k < SLOTS; k++) {
      if (this.expires[k]! > now && this.key[3 * k] === src && this.key[3 * k + 1] === dst && this.key[3 * k + 2] === idProto) return k;
    }
    return -1;
  }

  ctEntry(slot: number): number {
    return this.entry[slot]!;
  }

  ctState(slot: number): number {
    return this.state[slot]!;
  }

  forget(slot: number): void {
    this.expires[slot] = 0;
  }
}
