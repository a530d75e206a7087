// The events scheduled for the current instant (delay 0, or scheduleAt(now)), in scheduling order:
// a ring of event ids that grows by doubling. Such events are the heap's worst case (each would sift
// up to the root and back down), and they are common (deferred deliveries), so they bypass it.

const INITIAL_CAPACITY = 64;

export class InstantQueue {
  private ids = new Float64Array(INITIAL_CAPACITY);
  /** Index of the oldest entry; `count` entries follow it (wrapping around). */
  private head = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(id: number): void {
    if (this.count === this.ids.length) this.grow();
    this.ids[(this.head + this.count) & (this.ids.length - 1)] = id;
    this.count++;
  }

  /** The oldest id; only meaningful when size > 0. */
  peek(): number {
    return this.ids[this.head]!;
  }

  /** Removes and returns the oldest id; only meaningful when size > 0. */
  shift(): number {
    const id = this.ids[this.head]!;
    this.head = (this.head + 1) & (this.ids.length - 1);
    this.count--;
    return id;
  }

  /** Keeps only the ids that pass `keep`, in their order. */
  retain(keep: (id: number) => boolean): void {
    const kept = new Float64Array(this.ids.length);
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      const id = this.ids[(this.head + i) & (this.ids.length - 1)]!;
      if (keep(id)) kept[n++] = id;
    }
    this.ids = kept;
    this.head = 0;
    this.count = n;
  }

  private grow(): void {
    const cap = this.ids.length;
    const ids = new Float64Array(cap * 2);
    for (let i = 0; i < this.count; i++) ids[i] = this.ids[(this.head + i) & (cap - 1)]!;
    this.ids = ids;
    this.head = 0;
  }
}
