// Congestion controllers by name.

import { CongestionName } from "../sysctl.js";
import { Cubic } from "./cubic.js";
import { Reno } from "./reno.js";
import type { CongestionControl } from "./types.js";

export { Cubic } from "./cubic.js";
export { Reno } from "./reno.js";
export { INFINITE_SSTHRESH, type CcHost, type CongestionControl } from "./types.js";

export function createCongestionControl(name: CongestionName): CongestionControl {
  return name === CongestionName.RENO ? new Reno() : new Cubic();
}
