// A pod as Calico's CNI plugin wires it (also canal's): a veth whose host end is cali<11 hex digits
// of sha1("namespace.pod")> with MAC ee:ee:ee:ee:ee:ee, proxy ARP (proxy_delay 0) and a /32 host route
// `<podIP> dev caliX scope link`; inside the pod eth0 holds <podIP>/32 with `169.254.1.1 dev eth0
// scope link` and `default via 169.254.1.1 dev eth0`: the pod ARPs for 169.254.1.1 and the host answers
// with the cali interface's MAC, so every packet leaves the pod towards the host's routing.
import { createHash } from "node:crypto";
import type { NetNamespace } from "../../net/stack/namespace.js";
import type { NetWorld } from "../../net/world.js";
import { err, ok, type Result } from "../../util/result.js";
import type { SeededRng } from "../../util/rng.js";
import { CALICO_HOST_MAC, randomMac } from "../common/macs.js";
import { createPodVeth, type PodVeth } from "../common/veth.js";
import type { CniError } from "../plugin.js";

/** 169.254.1.1: the link-local next hop every Calico pod routes through. */
export const CALICO_GATEWAY = 0xa9fe0101;

/** Calico's host-side interface name for a pod (VethNameForWorkload). */
export function caliInterfaceName(namespace: string, pod: string): string {
  return `cali${createHash("sha1").update(`${namespace}.${pod}`).digest("hex").slice(0, 11)}`;
}

export function wireCalicoWorkload(
  world: NetWorld,
  rng: SeededRng,
  hostNs: NetNamespace,
  podNs: NetNamespace,
  pod: { readonly namespace: string; readonly name: string; readonly key: string },
  ip: number,
  mtu: number,
): Result<PodVeth, CniError> {
  const subject = `pod ${pod.key}`;
  const made = createPodVeth(world, podNs, hostNs, { host: caliInterfaceName(pod.namespace, pod.name) }, { host: CALICO_HOST_MAC, pod: randomMac(rng) }, mtu, subject);
  if (!made.ok) return made;
  const v = made.value;
  const steps = [
    podNs.addAddress(v.pod, ip, 32),
    podNs.routes.add({ dst: CALICO_GATEWAY, prefixLen: 32, dev: v.pod }),
    podNs.routes.add({ dst: 0, prefixLen: 0, via: CALICO_GATEWAY, dev: v.pod }),
    hostNs.routes.replace({ dst: ip, prefixLen: 32, dev: v.host, proto: "calico" }),
  ];
  for (const s of steps) if (!s.ok) return err({ subject, reason: s.error.reason });
  hostNs.sysctl.proxyArp.add(v.host.ifindex);
  hostNs.neigh.parms(v.host).proxyDelayNs = 0;
  return ok(v);
}
