// The CNI flavours `cnisim bench cni` compares: how each maps onto the Cluster file's cni section, the
// bytes its encapsulation adds (what the plugin subtracts from the host MTU for the pods, as current
// Calico and flannel compute it), and the bare-metal baseline (two hosts on the underlay, no Kubernetes).

export const FLAVOUR_NAMES = [
  "bare-metal",
  "calico-bgp",
  "calico-vxlan-cross-subnet",
  "calico-ipip",
  "calico-vxlan",
  "canal",
  "flannel-vxlan",
  "flannel-host-gw",
] as const;
export type FlavourName = (typeof FLAVOUR_NAMES)[number];

export interface Flavour {
  readonly name: FlavourName;
  /** The Cluster file's `cni:` fields; bare metal runs beside any cluster (flannel host-gw here). */
  readonly cni: { readonly plugin: string; readonly mode: string };
  /** What is on the wire between the nodes. */
  readonly encapsulation: "none" | "ipip" | "vxlan";
  /** Bytes the pod MTU leaves for the encapsulation (Calico: ipip 20, vxlan 50; flannel vxlan 50). */
  readonly mtuOverhead: number;
  /** Who enforces NetworkPolicy (iptables chains per pod interface) or nobody. */
  readonly policy: "iptables" | "none";
  readonly bareMetal: boolean;
}

export const FLAVOURS: { readonly [N in FlavourName]: Flavour } = {
  "bare-metal": { name: "bare-metal", cni: { plugin: "flannel", mode: "host-gw" }, encapsulation: "none", mtuOverhead: 0, policy: "none", bareMetal: true },
  "calico-bgp": { name: "calico-bgp", cni: { plugin: "calico", mode: "none" }, encapsulation: "none", mtuOverhead: 0, policy: "iptables", bareMetal: false },
  // VXLANCrossSubnet between nodes of one subnet routes unencapsulated, yet Calico still reserves 50 B.
  "calico-vxlan-cross-subnet": {
    name: "calico-vxlan-cross-subnet",
    cni: { plugin: "calico", mode: "vxlanCrossSubnet" },
    encapsulation: "none",
    mtuOverhead: 50,
    policy: "iptables",
    bareMetal: false,
  },
  "calico-ipip": { name: "calico-ipip", cni: { plugin: "calico", mode: "ipip" }, encapsulation: "ipip", mtuOverhead: 20, policy: "iptables", bareMetal: false },
  "calico-vxlan": { name: "calico-vxlan", cni: { plugin: "calico", mode: "vxlan" }, encapsulation: "vxlan", mtuOverhead: 50, policy: "iptables", bareMetal: false },
  canal: { name: "canal", cni: { plugin: "canal", mode: "vxlan" }, encapsulation: "vxlan", mtuOverhead: 50, policy: "iptables", bareMetal: false },
  "flannel-vxlan": { name: "flannel-vxlan", cni: { plugin: "flannel", mode: "vxlan" }, encapsulation: "vxlan", mtuOverhead: 50, policy: "none", bareMetal: false },
  "flannel-host-gw": { name: "flannel-host-gw", cni: { plugin: "flannel", mode: "host-gw" }, encapsulation: "none", mtuOverhead: 0, policy: "none", bareMetal: false },
};

export function isFlavourName(s: string): s is FlavourName {
  return (FLAVOUR_NAMES as readonly string[]).includes(s);
}

/** The pods' MTU: given, or the host MTU minus the flavour's overhead (bare metal: the host MTU). */
export function podMtuFor(f: Flavour, hostMtu: number, podMtu: number | null): number {
  if (f.bareMetal) return hostMtu;
  return podMtu ?? hostMtu - f.mtuOverhead;
}
