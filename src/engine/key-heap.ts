// A binary min-heap of (time, seq, value) triples kept inline in three Float64Arrays, ordered by
// time then seq. No object per entry: moving an entry moves three numbers. Grows by doubling.
// (Measured against 4-ary and bottom-up variants on the hold model: binary was as fast or faster.)

const INITIAL_CAPACITY = 256;

export class KeyHeap {
  private times: Float64Array;
  private seqs: Float64Array;
  private values: Float64Array;
  private count = 0;

  constructor(initialCapacity: number = INITIAL_CAPACITY) {
    const cap = Math.max(2, initialCapacity | 0);
    this.times = new Float64Array(cap);
    this.seqs = new Float64Array(cap);
    this.values = new Float64Array(cap);
  }

  get size(): number {
    return this.count;
  }

  /** Time of the smallest entry; only meaningful when size > 0. */
  topTime(): number {
    return this.times[0]!;
  }

  /** Value of the smallest entry; only meaningful when size > 0. */
  topValue(): number {
    return this.values[0]!;
  }

  push(time: number, seq: number, value: number): void {
    if (this.count === this.times.length) this.grow();
    const times = this.times;
    const seqs = this.seqs;
    const values = this.values;
    let i = this.count++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p]!;
      if (pt < time || (pt === time && seqs[p]! < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p]!;
      values[i] = values[p]!;
      i = p;
    }
    times[i] = time;
    seqs[i] = seq;
    values[i] = value;
  }

  /** Removes the smallest entry (no-op when empty). */
  removeTop(): void {
    if (this.count === 0) return;
    const last = --this.count;
    if (last === 0) return;
    this.siftDown(0, this.times[last]!, this.seqs[last]!, this.values[last]!);
  }

  /** Keeps only entries whose value passes `keep`, then restores heap order in O(n). */
  retain(keep: (value: number) => boolean): void {
    const times = this.times;
    const seqs = this.seqs;
    const values = this.values;
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      const v = values[i]!;
      if (!keep(v)) continue;
      times[n] = times[i]!;
      seqs[n] = seqs[i]!;
      values[n] = v;
      n++;
    }
    this.count = n;
    for (let i = (n - 2) >> 1; i >= 0; i--) this.siftDown(i, times[i]!, seqs[i]!, values[i]!);
  }

  /** Places (time, seq, value) at hole `i` and moves it down until its children are not smaller. */
  private siftDown(i: number, time: number, seq: number, value: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const values = this.values;
    const n = this.count;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      let ct = times[c]!;
      const r = c + 1;
      if (r < n) {
        const rt = times[r]!;
        if (rt < ct || (rt === ct && seqs[r]! < seqs[c]!)) {
          c = r;
          ct = rt;
        }
      }
      const cs = seqs[c]!;
      if (time < ct || (time === ct && seq < cs)) break;
      times[i] = ct;
      seqs[i] = cs;
      values[i] = values[c]!;
      i = c;
    }
    times[i] = time;
    seqs[i] = seq;
    values[i] = value;
  }

  private grow(): void {
    const cap = this.times.length * 2;
    const times = new Float64Array(cap);
    const seqs = new Float64Array(cap);
    const values = new Float64Array(cap);
    times.set(this.times);
    seqs.set(this.seqs);
    values.set(this.values);
    this.times = times;
    this.seqs = seqs;
    this.values = values;
  }
}
