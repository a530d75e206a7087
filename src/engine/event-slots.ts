// Storage for pending events' callbacks and arguments, indexed by slot, with a free list. An event id
// is `generation * 2^24 + slot` (never 0): once its event ran or was cancelled and the slot was reused
// under the next generation, the old id no longer matches, so a stale handle cannot touch the new event.

export type EventFn = (arg: unknown) => void;

const SLOT_BITS = 24;
/** Most events that can be pending at once. */
export const MAX_PENDING_EVENTS = 2 ** SLOT_BITS;
export const SLOT_MASK = MAX_PENDING_EVENTS - 1;
/** Generations cycle through 1 .. 2^29 - 1, so ids stay below 2^53 (exact in a double). */
const GENERATION_LIMIT = 2 ** 29;
/** The first id of generation GENERATION_LIMIT, which wraps to generation 1. */
const ID_LIMIT = GENERATION_LIMIT * MAX_PENDING_EVENTS;
const INITIAL_SLOTS = 256;

export class EventSlots {
  /**
   * Per slot: the pending event's id (> 0); minus the last id once freed (< 0), which keeps the
   * generation for the next use; 0 if never used. Live ids are positive, so only live slots match.
   */
  private ids: Float64Array;
  /** Callback at 2 * slot and argument at 2 * slot + 1: one cache line serves both. */
  private handlers: unknown[];
  private freeList: Int32Array;
  private freeCount = 0;
  /** Slots [0, used) have been handed out at least once. */
  private used = 0;
  private live = 0;

  constructor() {
    this.ids = new Float64Array(INITIAL_SLOTS);
    this.handlers = new Array<unknown>(2 * INITIAL_SLOTS).fill(undefined);
    this.freeList = new Int32Array(INITIAL_SLOTS);
  }

  /** Number of slots holding a pending event. */
  get liveCount(): number {
    return this.live;
  }

  /** Stores a callback and its argument; returns the new event id. */
  allocate(fn: EventFn, arg: unknown): number {
    let slot: number;
    if (this.freeCount > 0) {
      slot = this.freeList[--this.freeCount]!;
    } else {
      if (this.used === MAX_PENDING_EVENTS) {
        throw new RangeError(`engine: more than ${MAX_PENDING_EVENTS} events pending at once`);
      }
      if (this.used === this.ids.length) this.grow();
      slot = this.used++;
    }
    // The next generation of a freed slot is its last id plus one generation, without splitting the
    // id into generation and slot (no division per event); a never-used slot (0) starts at generation 1.
    const last = this.ids[slot]!;
    let id = last < 0 ? MAX_PENDING_EVENTS - last : MAX_PENDING_EVENTS + slot;
    if (id >= ID_LIMIT) id = MAX_PENDING_EVENTS + slot;
    this.ids[slot] = id;
    this.handlers[2 * slot] = fn;
    this.handlers[2 * slot + 1] = arg;
    this.live++;
    return id;
  }

  /** True while the event with this id is pending (false for stale, foreign or malformed ids). */
  isLive(id: number): boolean {
    return id > 0 && this.ids[id & SLOT_MASK] === id;
  }

  fnAt(slot: number): EventFn {
    return this.handlers[2 * slot] as EventFn;
  }

  argAt(slot: number): unknown {
    return this.handlers[2 * slot + 1];
  }

  /** Frees a live slot, dropping references to its callback and argument. */
  release(slot: number): void {
    this.ids[slot] = -this.ids[slot]!;
    this.handlers[2 * slot] = undefined;
    this.handlers[2 * slot + 1] = undefined;
    this.freeList[this.freeCount++] = slot;
    this.live--;
  }

  private grow(): void {
    const cap = this.ids.length * 2;
    const ids = new Float64Array(cap);
    ids.set(this.ids);
    this.ids = ids;
    const freeList = new Int32Array(cap);
    freeList.set(this.freeList);
    this.freeList = freeList;
    for (let i = this.handlers.length; i < 2 * cap; i++) this.handlers.push(undefined);
  }
}
