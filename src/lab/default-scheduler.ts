// The lab's scheduler: src/scheduler's kube-scheduler 1.30 default profile.
import { Scheduler } from "../scheduler/index.js";
import type { SchedulerFactory } from "./cluster.js";

export const defaultScheduler: SchedulerFactory = (store, rng, kubernetesVersion, clock) => new Scheduler(store, { rng, kubernetesVersion, clock });
