// Event ids: a slot's next id is its last one plus one generation (2^24), generation 1 after the
// last generation (2^29 - 1), and generation 1 for a slot never used; a freed id is never live.

import { test } from "node:test";
import assert from "node:assert/strict";
import { EventSlots, MAX_PENDING_EVENTS } from "../../src/engine/event-slots.js";

const noop = (): void => {};

test("a reused slot's id advances one generation, and a released id is no longer live", () => {
  const slots = new EventSlots();
  const first = slots.allocate(noop, undefined);
  assert.equal(first, MAX_PENDING_EVENTS);
  const second = slots.allocate(noop, undefined);
  assert.equal(second, MAX_PENDING_EVENTS + 1, "a fresh slot starts at generation 1");
  slots.release(0);
  assert.equal(slots.isLive(first), false);
  const again = slots.allocate(noop, undefined);
  assert.equal(again, 2 * MAX_PENDING_EVENTS, "slot 0, generation 2");
  assert.ok(slots.isLive(again) && !slots.isLive(first));
});

test("the generation wraps from 2^29 - 1 back to 1", () => {
  const slots = new EventSlots();
  slots.allocate(noop, undefined);
  slots.allocate(noop, undefined);
  slots.release(1);
  // Pretend slot 1 has lived through every generation: its freed id is the last generation's.
  const ids = (slots as unknown as { ids: Float64Array }).ids;
  ids[1] = -((2 ** 29 - 1) * MAX_PENDING_EVENTS + 1);
  assert.equal(slots.allocate(noop, undefined), MAX_PENDING_EVENTS + 1);
  slots.release(1);
  ids[1] = -((2 ** 29 - 2) * MAX_PENDING_EVENTS + 1);
  assert.equal(slots.allocate(noop, undefined), (2 ** 29 - 1) * MAX_PENDING_EVENTS + 1, "the last generation itself is used");
});
