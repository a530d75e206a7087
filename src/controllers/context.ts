// What every controller works with: the store (the API server), simulated time, the seeded RNG
// for generated names, and the event recorder.
import type { ObjectStore } from "../k8s/index.js";
import type { SeededRng } from "../util/rng.js";
import type { WallClock } from "./clock.js";
import type { EventRecorder } from "./events.js";

export interface ControllerContext {
  readonly store: ObjectStore;
  readonly wall: WallClock;
  readonly rng: SeededRng;
  readonly events: EventRecorder;
}
