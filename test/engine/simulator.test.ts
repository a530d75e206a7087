// Simulator behaviour: ordering, FIFO ties, cancellation and stale ids, runUntil/stop/step, determinism.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../src/engine/simulator.js";

const SLOT_MASK = 0xffffff; // ids are generation * 2^24 + slot (see event-slots.ts)

/** A simulator plus a trace of "label@time" strings written by `mark(label)` handlers. */
function traced(seed = 1): { sim: Simulator; trace: string[]; mark: (label: string) => () => void } {
  const sim = new Simulator({ seed });
  const trace: string[] = [];
  const mark = (label: string) => (): void => {
    trace.push(`${label}@${sim.now}`);
  };
  return { sim, trace, mark };
}

test("events run in time order, with now equal to each event's time", () => {
  const { sim, trace, mark } = traced();
  sim.schedule(30, mark("c"));
  sim.schedule(10, mark("a"));
  sim.scheduleAt(20, mark("b"));
  sim.schedule(0, mark("zero"));
  assert.equal(sim.pending, 4);
  assert.equal(sim.run(), 4);
  assert.deepEqual(trace, ["zero@0", "a@10", "b@20", "c@30"]);
  assert.equal(sim.now, 30);
  assert.equal(sim.pending, 0);
  assert.equal(sim.executed, 4);
});

test("equal-time events run in scheduling order, including ones scheduled by a handler", () => {
  const { sim, trace, mark } = traced();
  for (let i = 0; i < 25; i++) sim.schedule(7, mark(`e${i}`));
  sim.cancel(sim.schedule(7, mark("cancelled")));
  for (let i = 25; i < 50; i++) sim.scheduleAt(7, mark(`e${i}`));
  const expected = Array.from({ length: 50 }, (_, i) => `e${i}@7`);
  sim.run();
  assert.deepEqual(trace, expected);

  const second = traced();
  second.sim.schedule(5, () => {
    second.sim.schedule(0, second.mark("child-0"));
    second.sim.schedule(0, second.mark("child-1"));
  });
  second.sim.schedule(5, second.mark("sibling"));
  second.sim.run();
  assert.deepEqual(second.trace, ["sibling@5", "child-0@5", "child-1@5"]);
});

test("the handler receives its argument", () => {
  const sim = new Simulator();
  const seen: number[] = [];
  const packet = { bytes: 64 };
  sim.schedule(1, (p: { bytes: number }) => seen.push(p.bytes), packet);
  sim.schedule(2, (n: number) => seen.push(n), 42);
  sim.run();
  assert.deepEqual(seen, [64, 42]);
});

test("bad delays and times are RangeErrors at schedule time and leave no event behind", () => {
  const sim = new Simulator();
  const noop = (): void => {};
  for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(() => sim.schedule(bad, noop), RangeError, `delay ${bad}`);
  }
  assert.throws(() => sim.schedule(2 ** 53, noop), RangeError);
  sim.runUntil(100);
  assert.throws(() => sim.scheduleAt(99, noop), /timeNs must be an integer >= now \(100\), got 99/);
  assert.throws(() => sim.scheduleAt(100.5, noop), RangeError);
  assert.throws(() => sim.schedule(Number.MAX_SAFE_INTEGER, noop), /beyond 2\^53/);
  assert.throws(() => sim.step(-1), RangeError);
  assert.equal(sim.pending, 0);
  assert.equal(sim.heapEntries, 0);
  sim.scheduleAt(100, noop); // exactly now is allowed
  assert.equal(sim.run(), 1);
});

test("cancel removes a pending event exactly once and keeps pending exact", () => {
  const { sim, trace, mark } = traced();
  const a = sim.schedule(10, mark("a"));
  const b = sim.schedule(20, mark("b"));
  sim.schedule(30, mark("c"));
  assert.equal(sim.cancel(b), true);
  assert.equal(sim.pending, 2);
  assert.equal(sim.cancel(b), false);
  assert.equal(sim.pending, 2);
  assert.notEqual(a, 0);
  sim.run();
  assert.deepEqual(trace, ["a@10", "c@30"]);
  assert.equal(sim.cancel(a), false, "already ran");
});

test("ids that were never issued are rejected without side effects", () => {
  const sim = new Simulator();
  const gone = sim.schedule(1, () => {});
  assert.equal(sim.cancel(gone), true);
  assert.equal(sim.cancel(-gone), false, "negated id of a freed slot");
  assert.equal(sim.pending, 0);
  const id = sim.schedule(1, () => {});
  for (const bogus of [0, -1, -id, id + 1, id + 0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60]) {
    assert.equal(sim.cancel(bogus), false, `id ${bogus}`);
  }
  assert.equal(sim.pending, 1);
  assert.equal(sim.run(), 1);
});

test("a stale handle cannot cancel the event that reused its slot", () => {
  const { sim, trace, mark } = traced();
  const first = sim.schedule(10, mark("first"));
  assert.equal(sim.cancel(first), true);
  const second = sim.schedule(10, mark("second"));
  assert.equal(second & SLOT_MASK, first & SLOT_MASK, "the freed slot is reused");
  assert.notEqual(second, first);
  assert.equal(sim.cancel(first), false);

  sim.run();
  const third = sim.schedule(5, mark("third"));
  assert.equal(third & SLOT_MASK, second & SLOT_MASK);
  assert.equal(sim.cancel(second), false, "second already ran; its slot now holds third");
  sim.run();
  assert.deepEqual(trace, ["second@10", "third@15"]);
});

test("cancelling the running event is a no-op, even after its slot was reused inside the handler", () => {
  const { sim, trace, mark } = traced();
  let self = 0;
  let results: boolean[] = [];
  self = sim.schedule(10, () => {
    const child = sim.schedule(5, mark("child"));
    assert.equal(child & SLOT_MASK, self & SLOT_MASK, "child took the running event's slot");
    results = [sim.cancel(self), sim.cancel(self)];
    assert.equal(sim.pending, 1);
  });
  sim.run();
  assert.deepEqual(results, [false, false]);
  assert.deepEqual(trace, ["child@15"]);
});

test("a handler can cancel another event due at the same time or later", () => {
  const { sim, trace, mark } = traced();
  let victimSameTime = 0;
  let victimLater = 0;
  const outcome: boolean[] = [];
  sim.schedule(10, () => {
    trace.push(`killer@${sim.now}`);
    outcome.push(sim.cancel(victimSameTime), sim.cancel(victimLater));
  });
  victimSameTime = sim.schedule(10, mark("victim-same"));
  sim.schedule(10, mark("survivor"));
  victimLater = sim.schedule(11, mark("victim-later"));
  sim.run();
  assert.deepEqual(outcome, [true, true]);
  assert.deepEqual(trace, ["killer@10", "survivor@10"]);
  assert.equal(sim.pending, 0);
});

test("runUntil runs events at exactly t, not after, and leaves now = t", () => {
  const { sim, trace, mark } = traced();
  sim.schedule(10, mark("a"));
  sim.schedule(20, mark("b"));
  sim.schedule(21, mark("c"));
  sim.schedule(15, () => sim.schedule(5, mark("added-at-20")));
  assert.equal(sim.runUntil(20), 4);
  assert.deepEqual(trace, ["a@10", "b@20", "added-at-20@20"]);
  assert.equal(sim.now, 20);
  assert.equal(sim.pending, 1);
  assert.equal(sim.runUntil(20), 0, "running to the current time again is allowed");
  assert.throws(() => sim.runUntil(19), RangeError);
  assert.equal(sim.nextEventTime, 21);
  assert.equal(sim.runUntil(1000), 1);
  assert.equal(sim.now, 1000);
  assert.equal(sim.nextEventTime, Number.POSITIVE_INFINITY);
  assert.equal(sim.runUntil(5000), 0, "idle time passes");
  assert.equal(sim.now, 5000);
});

test("stop() ends the run after the current handler; a later call resumes", () => {
  const { sim, trace, mark } = traced();
  sim.schedule(10, mark("a"));
  sim.schedule(20, () => {
    trace.push(`stopper@${sim.now}`);
    sim.stop();
  });
  sim.schedule(20, mark("same-time-after-stop"));
  sim.schedule(30, mark("c"));
  assert.equal(sim.run(), 2);
  assert.deepEqual(trace, ["a@10", "stopper@20"]);
  assert.equal(sim.now, 20);
  assert.equal(sim.pending, 2);
  assert.equal(sim.run(), 2);
  assert.deepEqual(trace.slice(2), ["same-time-after-stop@20", "c@30"]);

  const later = traced();
  later.sim.schedule(5, () => later.sim.stop());
  later.sim.schedule(50, later.mark("x"));
  assert.equal(later.sim.runUntil(100), 1);
  assert.equal(later.sim.now, 5, "a stopped runUntil does not jump to its limit");
  later.sim.stop(); // outside a run: no effect on the next one
  assert.equal(later.sim.runUntil(100), 1);
  assert.equal(later.sim.now, 100);
  assert.deepEqual(later.trace, ["x@50"]);
});

test("step(n) runs at most n events and counts executed events", () => {
  const { sim, trace, mark } = traced();
  for (let i = 1; i <= 5; i++) sim.schedule(i, mark(`e${i}`));
  assert.equal(sim.step(), 1);
  assert.equal(sim.step(0), 0);
  assert.equal(sim.step(3), 3);
  assert.deepEqual(trace, ["e1@1", "e2@2", "e3@3", "e4@4"]);
  assert.equal(sim.step(10), 1);
  assert.equal(sim.step(10), 0);
  assert.equal(sim.executed, 5);
});

test("nextEventTime skips cancelled events", () => {
  const sim = new Simulator();
  const early = sim.schedule(3, () => {});
  sim.schedule(9, () => {});
  assert.equal(sim.nextEventTime, 3);
  sim.cancel(early);
  assert.equal(sim.nextEventTime, 9);
  assert.equal(sim.pending, 1);
});

test("re-entering the run loop from a handler is an error; a throwing handler leaves the simulator usable", () => {
  const sim = new Simulator();
  sim.schedule(1, () => sim.run());
  assert.throws(() => sim.run(), /inside an event handler/);
  sim.schedule(1, () => {
    throw new Error("boom");
  });
  sim.schedule(2, () => {});
  assert.throws(() => sim.run(), /boom/);
  assert.equal(sim.now, 2);
  assert.equal(sim.pending, 1);
  assert.equal(sim.run(), 1);
  assert.equal(sim.now, 3);
});

test("cancelled entries are compacted: churn keeps the heap bounded and order intact", () => {
  const { sim, trace, mark } = traced();
  for (let i = 0; i < 10; i++) sim.schedule(1_000_000 + i, mark(`keep${i}`));
  let maxEntries = 0;
  for (let i = 0; i < 100_000; i++) {
    // A retransmission-timer pattern: arm a far timer, then cancel it.
    sim.cancel(sim.schedule(5_000_000 + (i % 977), mark("never")));
    maxEntries = Math.max(maxEntries, sim.heapEntries);
  }
  assert.ok(maxEntries <= 2 * 10 + 1025 + 1, `heap grew to ${maxEntries} entries`);
  assert.equal(sim.pending, 10);
  sim.run();
  assert.deepEqual(
    trace,
    Array.from({ length: 10 }, (_, i) => `keep${i}@${1_000_000 + i}`),
  );
});

test("same seed and schedule give identical traces; another seed differs", () => {
  const runWorkload = (seed: number): string => {
    const sim = new Simulator({ seed });
    const log: string[] = [];
    const timers: number[] = [];
    const actor = (name: number): void => {
      const roll = sim.rng.nextInt(100);
      log.push(`${sim.now}:${name}:${roll}`);
      if (roll < 20 && timers.length > 0) sim.cancel(timers[sim.rng.nextInt(timers.length)]!);
      if (sim.executed < 5000) {
        timers.push(sim.schedule(sim.rng.nextInt(1000), actor, name));
        if (roll > 80) timers.push(sim.schedule(0, actor, name + 100));
      }
    };
    for (let i = 0; i < 20; i++) sim.schedule(sim.rng.nextInt(50), actor, i);
    sim.run();
    return log.join("\n");
  };
  const a = runWorkload(7);
  assert.ok(a.split("\n").length >= 5000);
  assert.equal(runWorkload(7), a);
  assert.notEqual(runWorkload(8), a);
});

test("an event due now from the heap runs before events scheduled at this instant, which run before later times", () => {
  const { sim, trace, mark } = traced();
  sim.schedule(10, () => {
    trace.push(`first@${sim.now}`);
    sim.schedule(0, mark("now-0"));
    sim.scheduleAt(sim.now, mark("now-1"));
    sim.schedule(1, mark("later"));
  });
  sim.scheduleAt(10, mark("heap-due"));
  sim.runUntil(10);
  assert.deepEqual(trace, ["first@10", "heap-due@10", "now-0@10", "now-1@10"]);
  assert.equal(sim.nextEventTime, 11);
  sim.run();
  assert.deepEqual(trace.slice(4), ["later@11"]);
});

test("events at this instant can be cancelled, are counted, and step runs them one at a time", () => {
  const { sim, trace, mark } = traced();
  sim.runUntil(50);
  const ids = Array.from({ length: 200 }, (_, i) => sim.schedule(0, mark(`n${i}`)));
  assert.equal(sim.pending, 200);
  assert.equal(sim.nextEventTime, 50);
  for (let i = 0; i < 200; i += 2) assert.equal(sim.cancel(ids[i]!), true);
  assert.equal(sim.cancel(ids[0]!), false);
  assert.equal(sim.pending, 100);
  assert.equal(sim.step(1), 1);
  assert.deepEqual(trace, ["n1@50"]);
  assert.equal(sim.run(), 99);
  assert.deepEqual(trace, Array.from({ length: 100 }, (_, i) => `n${2 * i + 1}@50`));
  assert.equal(sim.now, 50);
  assert.equal(sim.heapEntries, 0);
  assert.equal(sim.nextEventTime, Number.POSITIVE_INFINITY);
});

test("cancelled events at this instant are compacted with the heap's", () => {
  const { sim, trace, mark } = traced();
  sim.schedule(5, mark("kept"));
  let maxEntries = 0;
  for (let i = 0; i < 20_000; i++) {
    sim.cancel(sim.schedule(0, mark("never")));
    maxEntries = Math.max(maxEntries, sim.heapEntries);
  }
  assert.ok(maxEntries <= 2 * 1 + 1025 + 1, `queues grew to ${maxEntries} entries`);
  sim.run();
  assert.deepEqual(trace, ["kept@5"]);
});
