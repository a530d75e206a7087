// The veth pair every bridge/routed CNI creates for a pod: eth0 inside the pod's namespace, the
// host end in the node's namespace, both with the pod MTU.
import type { NetNamespace } from "../../net/stack/namespace.js";
import { VethDevice } from "../../net/veth.js";
import type { NetWorld } from "../../net/world.js";
import { err, ok, type Result } from "../../util/result.js";
import type { CniError } from "../plugin.js";

export interface PodVeth {
  readonly pod: VethDevice;
  readonly host: VethDevice;
}

export function createPodVeth(
  world: NetWorld,
  podNs: NetNamespace,
  hostNs: NetNamespace,
  names: { readonly host: string; readonly pod?: string },
  macs: { readonly host: number; readonly pod: number },
  mtu: number,
  subject: string,
): Result<PodVeth, CniError> {
  const [pod, host] = VethDevice.pair(world, names.pod ?? "eth0", macs.pod, names.host, macs.host, mtu);
  const a = podNs.addDevice(pod);
  if (!a.ok) return err({ subject, reason: a.error.reason });
  const b = hostNs.addDevice(host);
  if (!b.ok) {
    podNs.removeDevice(pod);
    return err({ subject, reason: b.error.reason });
  }
  return ok({ pod, host });
}

/** Removes both ends (deleting one end of a veth deletes the pair). */
export function deletePodVeth(v: PodVeth, podNs: NetNamespace, hostNs: NetNamespace): void {
  v.pod.up = false;
  v.host.up = false;
  podNs.removeDevice(v.pod);
  hostNs.removeDevice(v.host);
}
