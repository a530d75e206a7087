// How a route BGP selected becomes a kernel route on a Calico node (BIRD's kernel protocol plus felix's
// VXLAN programming), per encapsulation mode:
//   ipip:  <block> via <nodeIP> dev tunl0 onlink proto bird
//   none:  <block> via <nodeIP> dev eth0 proto bird
//   vxlan: <block> via <remote vxlan.calico address> dev vxlan.calico onlink, with a permanent
//          neighbour entry (remote address -> remote VTEP MAC) and an FDB entry (MAC -> node IP)
//   vxlanCrossSubnet: as none when the next hop is on this node's subnet, else as vxlan.
import { ipv4InPrefix } from "../../util/ip.js";
import type { NetDevice } from "../../net/device.js";
import type { NetNamespace } from "../../net/stack/namespace.js";
import type { VxlanDevice } from "../../net/vxlan.js";
import type { RouteSink } from "./bgp/rib.js";

export const CalicoMode = { IPIP: "ipip", VXLAN: "vxlan", VXLAN_CROSS_SUBNET: "vxlanCrossSubnet", NONE: "none" } as const;
export type CalicoMode = (typeof CalicoMode)[keyof typeof CalicoMode];

export interface VtepInfo {
  readonly nodeIp: number;
  readonly tunnelAddress: number;
  readonly mac: number;
}

export interface CalicoRouteTarget {
  readonly mode: CalicoMode;
  readonly ns: NetNamespace;
  readonly uplink: NetDevice;
  readonly subnet: { readonly address: number; readonly prefixLength: number };
  readonly tunl0: NetDevice | null;
  readonly vxlan: VxlanDevice | null;
  /** VTEP of the node with this underlay address (vxlan modes). */
  readonly vtepOf: (nodeIp: number) => VtepInfo | undefined;
  /** Reports a route that could not be installed. */
  readonly onError: (what: string) => void;
}

export function calicoRouteSink(t: CalicoRouteTarget): RouteSink {
  const installed = new Map<string, VtepInfo | null>();
  const key = (p: number, l: number): string => `${p}/${l}`;
  const encap = (nextHop: number): boolean => {
    if (t.mode === CalicoMode.VXLAN) return true;
    if (t.mode === CalicoMode.VXLAN_CROSS_SUBNET) return !ipv4InPrefix(nextHop, t.subnet.address, t.subnet.prefixLength);
    return false;
  };
  return {
    install(prefix, length, nextHop) {
      const routes = t.ns.routes;
      let vtep: VtepInfo | null = null;
      let r;
      if (t.mode === CalicoMode.IPIP && t.tunl0 !== null) {
        r = routes.replace({ dst: prefix, prefixLen: length, via: nextHop, dev: t.tunl0, onlink: true, proto: "bird" });
      } else if (encap(nextHop) && t.vxlan !== null) {
        vtep = t.vtepOf(nextHop) ?? null;
        if (vtep === null) return t.onError(`no VXLAN tunnel endpoint known for node ${nextHop}`);
        t.ns.neigh.addStatic(t.vxlan, vtep.tunnelAddress, vtep.mac);
        t.vxlan.setRemote(vtep.mac, vtep.nodeIp);
        r = routes.replace({ dst: prefix, prefixLen: length, via: vtep.tunnelAddress, dev: t.vxlan, onlink: true, proto: "80" });
      } else {
        r = routes.replace({ dst: prefix, prefixLen: length, via: nextHop, dev: t.uplink, proto: "bird" });
      }
      if (!r.ok) return t.onError(r.error.reason);
      installed.set(key(prefix, length), vtep);
    },
    remove(prefix, length) {
      if (!installed.has(key(prefix, length))) return;
      installed.delete(key(prefix, length));
      t.ns.routes.remove({ dst: prefix, prefixLen: length, table: "main" });
    },
  };
}
