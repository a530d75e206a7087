// The work one side of a test costs, read from the model's counters exactly as `top` reads them
// (collectNamespace: NIC per wire frame, socket payload copies), with the NICs' checksum offload as the
// run configures it.
import { collectNamespaceSources, namespaceSources, OFFLOADED, type CollectOptions, type NamespaceSources, type TcpCounterView, type Work } from "../metrics/index.js";
import type { NetNamespace } from "../net/stack/index.js";
import { TcpStack } from "../net/tcp/index.js";

const NOTHING_SKIPPED: ReadonlySet<never> = new Set();
const SOFTWARE: CollectOptions = Object.freeze({ checksumOffload: false });

/** One namespace of a side with its counter holders resolved (they are fixed for the namespace's life). */
export interface SideSource {
  readonly sources: NamespaceSources;
  readonly tcp: TcpCounterView;
}

/** Resolves the counter holders of a side's namespaces once, for a reader that reads them at every tick. */
export function sideSources(namespaces: readonly NetNamespace[]): readonly SideSource[] {
  return namespaces.map((ns) => ({ sources: namespaceSources(ns), tcp: TcpStack.of(ns).counters }));
}

/** Adds the work of the side's namespaces to `w`; `offload`: the NICs checksum in hardware (ethtool's defaults). */
export function collectSideSources(side: readonly SideSource[], w: Work, offload: boolean): void {
  const options = offload ? OFFLOADED : SOFTWARE;
  for (const s of side) collectNamespaceSources(s.sources, w, s.tcp, NOTHING_SKIPPED, options);
}

/** Adds the work of `namespaces` to `w`; `offload`: the NICs checksum in hardware (ethtool's defaults). */
export function collectSide(namespaces: readonly NetNamespace[], w: Work, offload: boolean): void {
  collectSideSources(sideSources(namespaces), w, offload);
}
