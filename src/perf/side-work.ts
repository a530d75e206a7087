// The work one side of a test costs, read from the model's counters exactly as `top` reads them
// (collectNamespace: NIC per wire frame, socket payload copies), with the NICs' checksum offload as the
// run configures it.
import { collectNamespace, OFFLOADED, type CollectOptions, type Work } from "../metrics/index.js";
import type { NetNamespace } from "../net/stack/index.js";
import { TcpStack } from "../net/tcp/index.js";

const NOTHING_SKIPPED: ReadonlySet<never> = new Set();
const SOFTWARE: CollectOptions = Object.freeze({ checksumOffload: false });

/** Adds the work of `namespaces` to `w`; `offload`: the NICs checksum in hardware (ethtool's defaults). */
export function collectSide(namespaces: readonly NetNamespace[], w: Work, offload: boolean): void {
  const options = offload ? OFFLOADED : SOFTWARE;
  for (const ns of namespaces) collectNamespace(ns, w, TcpStack.of(ns).counters, NOTHING_SKIPPED, options);
}
