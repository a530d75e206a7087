// LruHashMap: a hash map that evicts its least recently used entry when full (BPF_MAP_TYPE_LRU_HASH).
// Exact LRU (the kernel's is approximate, per-CPU): lookup hits and upserts count as use; evictions are counted.
import { HashMap } from "./hashmap.js";
import type { HashMapOptions } from "./hashmap.js";

const NONE = -1;

export class LruHashMap extends HashMap {
  private prev: Int32Array;
  private next: Int32Array;
  private head = NONE; // most recently used
  private tail = NONE; // least recently used

  constructor(options: HashMapOptions) {
    super(options);
    this.prev = new Int32Array(this.capacity);
    this.next = new Int32Array(this.capacity);
  }

  /** Slot of the key in `this.key` or -1; a hit marks the entry most recently used. */
  override lookup(): number {
    const slot = super.lookup();
    if (slot >= 0 && slot !== this.head) {
      this.unlink(slot);
      this.linkHead(slot);
    }
    return slot;
  }

  /** Like lookup without touching the recency order (for dumps and tests). */
  peek(): number {
    return this.findKey(this.key, 0);
  }

  override upsert(): number {
    const slot = super.upsert();
    if (slot >= 0 && !this.created && slot !== this.head) {
      this.unlink(slot);
      this.linkHead(slot);
    }
    return slot;
  }

  /** Slot that would be evicted next, or -1 when empty. */
  get leastRecentlyUsed(): number {
    return this.tail;
  }

  /** Slots from most to least recently used (allocates; for tests and dumps). */
  recencyOrder(): number[] {
    const out: number[] = [];
    for (let s = this.head; s !== NONE; s = this.next[s]!) out.push(s);
    return out;
  }

  protected override makeRoom(): boolean {
    if (this.tail === NONE) return false;
    this.deleteSlot(this.tail);
    this.stats.evictions++;
    return true;
  }

  protected override onInsert(slot: number): void {
    this.linkHead(slot);
  }

  protected override onRemove(slot: number): void {
    this.unlink(slot);
  }

  protected override onGrow(capacity: number): void {
    const prev = new Int32Array(capacity);
    prev.set(this.prev);
    const next = new Int32Array(capacity);
    next.set(this.next);
    this.prev = prev;
    this.next = next;
  }

  protected override onClear(): void {
    this.head = NONE;
    this.tail = NONE;
  }

  private linkHead(slot: number): void {
    this.prev[slot] = NONE;
    this.next[slot] = this.head;
    if (this.head !== NONE) this.prev[this.head] = slot;
    this.head = slot;
    if (this.tail === NONE) this.tail = slot;
  }

  private unlink(slot: number): void {
    const p = this.prev[slot]!;
    const n = this.next[slot]!;
    if (p !== NONE) this.next[p] = n;
    else this.head = n;
    if (n !== NONE) this.prev[n] = p;
    else this.tail = p;
  }
}
