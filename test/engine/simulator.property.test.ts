// Property test: random interleavings of schedule / cancel / step / runUntil (and handlers that
// schedule follow-ups) against a plain sorted-array reference model of a (time, seq) event queue.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Simulator } from "../../src/engine/simulator.js";

type Command =
  | { readonly kind: "schedule"; readonly delay: number; readonly childDelay: number }
  | { readonly kind: "burst"; readonly count: number; readonly maxDelay: number; readonly keepEvery: number }
  | { readonly kind: "cancel"; readonly pick: number }
  | { readonly kind: "cancelEvery"; readonly stride: number; readonly offset: number }
  | { readonly kind: "step"; readonly count: number }
  | { readonly kind: "runUntil"; readonly advance: number };

const NO_CHILD = -1;

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("schedule" as const),
      delay: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 10_000 })),
      childDelay: fc.oneof(fc.constant(NO_CHILD), fc.integer({ min: 0, max: 5 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("burst" as const),
      count: fc.integer({ min: 1, max: 2500 }),
      maxDelay: fc.integer({ min: 0, max: 3000 }),
      // 0: keep all; k > 0: cancel all but every k-th right away (drives heap compaction).
      keepEvery: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 })),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("cancelEvery" as const),
      stride: fc.integer({ min: 1, max: 3 }),
      offset: fc.nat({ max: 2 }),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("step" as const), count: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("runUntil" as const), advance: fc.integer({ min: 0, max: 40 }) }) },
);

interface ModelEvent {
  readonly time: number;
  readonly seq: number;
  readonly label: number;
  readonly childDelay: number;
}

/** The reference: an array kept sorted by (time, seq); popping takes the first element. */
class ReferenceQueue {
  now = 0;
  private seq = 0;
  private readonly events: ModelEvent[] = [];
  readonly trace: string[] = [];

  schedule(delay: number, childDelay: number): number {
    const ev: ModelEvent = { time: this.now + delay, seq: this.seq, label: this.seq, childDelay };
    this.seq++;
    let i = this.events.length;
    while (i > 0 && this.events[i - 1]!.time > ev.time) i--;
    this.events.splice(i, 0, ev);
    return ev.label;
  }

  cancel(label: number): boolean {
    const i = this.events.findIndex((e) => e.label === label);
    if (i < 0) return false;
    this.events.splice(i, 1);
    return true;
  }

  get pending(): number {
    return this.events.length;
  }

  /** Runs the first event if its time <= limit; false when none qualifies. */
  runOne(limit: number): boolean {
    const ev = this.events[0];
    if (ev === undefined || ev.time > limit) return false;
    this.events.shift();
    this.now = ev.time;
    this.trace.push(`${ev.label}@${ev.time}`);
    if (ev.childDelay !== NO_CHILD) this.schedule(ev.childDelay, NO_CHILD);
    return true;
  }
}

/** The system under test, wrapped so that labels are the order of scheduling, as in the model. */
class SimUnderTest {
  readonly sim = new Simulator({ seed: 3 });
  readonly trace: string[] = [];
  readonly issued: { id: number; label: number }[] = [];
  private nextLabel = 0;

  private readonly handler = (ev: { label: number; childDelay: number }): void => {
    this.trace.push(`${ev.label}@${this.sim.now}`);
    if (ev.childDelay !== NO_CHILD) this.schedule(ev.childDelay, NO_CHILD);
  };

  schedule(delay: number, childDelay: number): void {
    const label = this.nextLabel++;
    const id = this.sim.schedule(delay, this.handler, { label, childDelay });
    this.issued.push({ id, label });
  }
}

function check(commands: readonly Command[]): void {
  const model = new ReferenceQueue();
  const sut = new SimUnderTest();
  for (const cmd of commands) {
    switch (cmd.kind) {
      case "schedule":
        sut.schedule(cmd.delay, cmd.childDelay);
        model.schedule(cmd.delay, cmd.childDelay);
        break;
      case "burst": {
        const first = sut.issued.length;
        for (let i = 0; i < cmd.count; i++) {
          const delay = (i * 7919) % (cmd.maxDelay + 1);
          sut.schedule(delay, NO_CHILD);
          model.schedule(delay, NO_CHILD);
        }
        if (cmd.keepEvery === 0) break;
        for (let i = first; i < sut.issued.length; i++) {
          if ((i - first) % cmd.keepEvery === 0) continue;
          const target = sut.issued[i]!;
          assert.equal(sut.sim.cancel(target.id), model.cancel(target.label));
        }
        break;
      }
      case "cancel": {
        const target = sut.issued[cmd.pick % Math.max(1, sut.issued.length)];
        if (target !== undefined) assert.equal(sut.sim.cancel(target.id), model.cancel(target.label));
        break;
      }
      case "cancelEvery":
        for (let i = cmd.offset; i < sut.issued.length; i += cmd.stride) {
          const target = sut.issued[i]!;
          assert.equal(sut.sim.cancel(target.id), model.cancel(target.label));
        }
        break;
      case "step": {
        let expected = 0;
        while (expected < cmd.count && model.runOne(Number.POSITIVE_INFINITY)) expected++;
        assert.equal(sut.sim.step(cmd.count), expected);
        break;
      }
      case "runUntil": {
        const until = model.now + cmd.advance;
        let expected = 0;
        while (model.runOne(until)) expected++;
        model.now = until;
        assert.equal(sut.sim.runUntil(until), expected);
        break;
      }
    }
    assert.equal(sut.sim.pending, model.pending);
    assert.equal(sut.sim.now, model.now);
  }
  while (model.runOne(Number.POSITIVE_INFINITY));
  sut.sim.run();
  assert.deepEqual(sut.trace, model.trace);
  assert.equal(sut.sim.pending, 0);
}

test("simulator agrees with a sorted-array reference under random schedule/cancel/run interleavings", () => {
  fc.assert(
    fc.property(fc.array(commandArb, { minLength: 1, maxLength: 300 }), (commands) => check(commands)),
    { numRuns: 150 },
  );
});
