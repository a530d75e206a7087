// A small direct-mapped cache keyed by a pair of 32-bit integers (an address, an interface index):
// each key hashes to one slot, and storing a key replaces whatever the slot held. clear() forgets
// everything at once (a generation count, nothing is rewritten). No allocation per get or set.

export class DirectMappedCache<V> {
  private readonly firstKeys: Int32Array;
  private readonly secondKeys: Int32Array;
  /** Generation each slot was stored in; a slot is valid only in the current one. */
  private readonly stamps: Int32Array;
  private readonly values: (V | undefined)[];
  private readonly shift: number;
  /** Starts at 1 so that never-written slots (stamp 0) are invalid. */
  private generation = 1;

  /** slotBits: log2 of the number of slots (1..16). */
  constructor(slotBits: number) {
    const slots = 1 << slotBits;
    this.firstKeys = new Int32Array(slots);
    this.secondKeys = new Int32Array(slots);
    this.stamps = new Int32Array(slots);
    this.values = new Array<V | undefined>(slots).fill(undefined);
    this.shift = 32 - slotBits;
  }

  /** The value stored for (first, second), or undefined. */
  get(first: number, second: number): V | undefined {
    const a = first | 0;
    const b = second | 0;
    const slot = this.slotOf(a, b);
    if (this.stamps[slot] !== this.generation || this.firstKeys[slot] !== a || this.secondKeys[slot] !== b) return undefined;
    return this.values[slot];
  }

  set(first: number, second: number, value: V): void {
    const a = first | 0;
    const b = second | 0;
    const slot = this.slotOf(a, b);
    this.firstKeys[slot] = a;
    this.secondKeys[slot] = b;
    this.stamps[slot] = this.generation;
    this.values[slot] = value;
  }

  clear(): void {
    this.generation++;
    // Drop the references too when a full cycle of generations could make old stamps look current.
    if (this.generation === 0x7fffffff) {
      this.generation = 1;
      this.stamps.fill(0);
      this.values.fill(undefined);
    }
  }

  private slotOf(a: number, b: number): number {
    return Math.imul(a ^ Math.imul(b, 0x85ebca6b), 0x9e3779b1) >>> this.shift;
  }
}
