// A binary min-heap of (time, seq, value) triples kept inline in one Float64Array, ordered by time
// then seq. No object per entry: moving an entry moves three numbers. Grows by doubling.
// (Measured against 4-ary and bottom-up variants on the hold model: binary was as fast or faster.)
//
// Layout: node k (1-based: the root is node 1, the children of k are 2k and 2k + 1) occupies the
// four doubles at 4k: time, seq, value and one unused, so a node is 32 bytes and the two children a
// sift compares (2k at 64k bytes) share one 64-byte cache line. Three separate arrays cost up to
// three lines per level: the heap holds every pending timer and delivery, more than the L1 cache.

const INITIAL_CAPACITY = 256;
const STRIDE = 4;
const SEQ = 1;
const VALUE = 2;

export class KeyHeap {
  private nodes: Float64Array;
  /** Nodes the array has room for (1..capacity). */
  private capacity: number;
  private count = 0;

  constructor(initialCapacity: number = INITIAL_CAPACITY) {
    this.capacity = Math.max(2, initialCapacity | 0);
    this.nodes = new Float64Array((this.capacity + 1) * STRIDE);
  }

  get size(): number {
    return this.count;
  }

  /** Time of the smallest entry; only meaningful when size > 0. */
  topTime(): number {
    return this.nodes[STRIDE]!;
  }

  /** Value of the smallest entry; only meaningful when size > 0. */
  topValue(): number {
    return this.nodes[STRIDE + VALUE]!;
  }

  push(time: number, seq: number, value: number): void {
    if (this.count === this.capacity) this.grow();
    const nodes = this.nodes;
    let k = ++this.count;
    while (k > 1) {
      const p = k >> 1;
      const pb = p * STRIDE;
      const pt = nodes[pb]!;
      if (pt < time || (pt === time && nodes[pb + SEQ]! < seq)) break;
      const kb = k * STRIDE;
      nodes[kb] = pt;
      nodes[kb + SEQ] = nodes[pb + SEQ]!;
      nodes[kb + VALUE] = nodes[pb + VALUE]!;
      k = p;
    }
    const kb = k * STRIDE;
    nodes[kb] = time;
    nodes[kb + SEQ] = seq;
    nodes[kb + VALUE] = value;
  }

  /** Removes the smallest entry (no-op when empty). */
  removeTop(): void {
    if (this.count === 0) return;
    const lb = this.count * STRIDE;
    if (--this.count === 0) return;
    const nodes = this.nodes;
    this.siftDown(1, nodes[lb]!, nodes[lb + SEQ]!, nodes[lb + VALUE]!);
  }

  /** Keeps only entries whose value passes `keep`, then restores heap order in O(n). */
  retain(keep: (value: number) => boolean): void {
    const nodes = this.nodes;
    let n = 0;
    for (let k = 1; k <= this.count; k++) {
      const kb = k * STRIDE;
      const v = nodes[kb + VALUE]!;
      if (!keep(v)) continue;
      const nb = ++n * STRIDE;
      nodes[nb] = nodes[kb]!;
      nodes[nb + SEQ] = nodes[kb + SEQ]!;
      nodes[nb + VALUE] = v;
    }
    this.count = n;
    for (let k = n >> 1; k >= 1; k--) {
      const kb = k * STRIDE;
      this.siftDown(k, nodes[kb]!, nodes[kb + SEQ]!, nodes[kb + VALUE]!);
    }
  }

  /** Places (time, seq, value) at hole `k` and moves it down until its children are not smaller. */
  private siftDown(k: number, time: number, seq: number, value: number): void {
    const nodes = this.nodes;
    const n = this.count;
    for (;;) {
      let c = 2 * k;
      if (c > n) break;
      let cb = c * STRIDE;
      let ct = nodes[cb]!;
      if (c < n) {
        const rb = cb + STRIDE;
        const rt = nodes[rb]!;
        if (rt < ct || (rt === ct && nodes[rb + SEQ]! < nodes[cb + SEQ]!)) {
          c++;
          cb = rb;
          ct = rt;
        }
      }
      const cs = nodes[cb + SEQ]!;
      if (time < ct || (time === ct && seq < cs)) break;
      const kb = k * STRIDE;
      nodes[kb] = ct;
      nodes[kb + SEQ] = cs;
      nodes[kb + VALUE] = nodes[cb + VALUE]!;
      k = c;
    }
    const kb = k * STRIDE;
    nodes[kb] = time;
    nodes[kb + SEQ] = seq;
    nodes[kb + VALUE] = value;
  }

  private grow(): void {
    this.capacity *= 2;
    const nodes = new Float64Array((this.capacity + 1) * STRIDE);
    nodes.set(this.nodes);
    this.nodes = nodes;
  }
}
