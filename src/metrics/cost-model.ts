// The CPU cost model: what each datapath step costs in nanoseconds per packet, per byte and per
// GSO/GRO batch on a reference 3 GHz core, with the published figure each default comes from
// (see README.md for the table), scaled to the cluster's CPU clock.

/** Steps of the datapath the model charges, in the order reports list them. */
export const COST_STEPS = [
  "nicRx",
  "nicTx",
  "parse",
  "routeLookup",
  "netfilterHook",
  "netfilterRule",
  "netfilterMatch",
  "conntrackLookup",
  "conntrackInsert",
  "natRewrite",
  "policyLookup",
  "bpfProgram",
  "bpfMapLookup",
  "bpfMapUpdate",
  "bridgeFdbLookup",
  "vethCrossing",
  "vxlanEncap",
  "vxlanDecap",
  "ipipEncap",
  "ipipDecap",
  "checksum",
  "copy",
  "socketDelivery",
  "tcpSegment",
] as const;
export type CostStep = (typeof COST_STEPS)[number];

/** Index of each step in COST_STEPS (and in Work arrays). */
export const STEP = Object.freeze(Object.fromEntries(COST_STEPS.map((s, i) => [s, i]))) as { readonly [S in CostStep]: number };

/** What one step costs: per packet (or per lookup / per segment), per byte touched, per batch. */
export interface StepCost {
  readonly packetNs: number;
  readonly byteNs: number;
  readonly batchNs: number;
}

export interface CostModel {
  /** The clock the step costs are given for. */
  readonly referenceGHz: number;
  /** The clock of the emulated nodes' CPUs; costs scale by referenceGHz / cpuGHz. */
  readonly cpuGHz: number;
  readonly steps: { readonly [S in CostStep]: StepCost };
  /** What every node uses besides its pods (kubelet, container runtime, OS), as metrics-server sees it. */
  readonly systemCpuNanoCores: number;
  readonly systemMemoryBytes: number;
  /** A pod that declares no usage (a sleeping container). */
  readonly idleCpuNanoCores: number;
  readonly idleMemoryBytes: number;
  /** CPU time per request served by a pod that declares no usage (its workload's user-space share), ns. */
  readonly idleRequestCpuNs: number;
  /** Kernel memory per conntrack entry (nf_conntrack slab object), counted in node memory. */
  readonly conntrackEntryBytes: number;
  /** metrics-server's --metric-resolution: the scrape interval and so the rate window, in ns of simulated time. */
  readonly resolutionNs: number;
}

/** One default with where it comes from. */
interface DefaultRow {
  readonly step: CostStep;
  readonly packetNs: number;
  readonly byteNs?: number;
  readonly batchNs?: number;
  /** What the step covers in the kernel. */
  readonly covers: string;
  /** Where the figure comes from. */
  readonly source: string;
}

// Sources (full references in README.md):
//  [XDP]    Høiland-Jørgensen et al., "The eXpress Data Path", CoNEXT 2018: 24 Mpps per core for an XDP drop (~42 ns
//           per packet including the driver), the Linux stack a small multiple of that per packet.
//  [BROUER] J. Brouer, netdev/LCA 2015 (LWN "Improving Linux networking performance"): 67.2 ns per packet at 10G
//           line rate, a cache miss 32 ns, L3 hit 8 ns, spin lock 16 ns, skb alloc/free and syscalls above the budget.
//  [CF]     Cloudflare, "How to drop 10 million packets per second" (2018): per-core drop rates by layer; a UDP
//           application on one core receives ~170 kpps (conntrack creating an entry per packet).
//  [CTHALF] Measurements quoted widely (e.g. mamicode 303611): enabling nf_conntrack roughly halves the stack's pps
//           under new-flow load.
//  [SLIM]   Zhuo et al., "Slim", NSDI 2019: overlay packets traverse the network stack twice on each host.
//  [IPTRULE] unix.stackexchange.com q. "Does iptables multiport module provide a performance benefit over multiple
//           separate rules?": SystemTap cycles of ipt_do_table for a packet crossing 4,500 `-p tcp --dport` rules on
//           Linux 4.15: ~0.4-1.0 M cycles, i.e. ~190 cycles (~60 ns at 3 GHz) per rule evaluated.
//  [NGINX]  NGINX blog, "Testing the Performance of NGINX and NGINX Plus Web Servers" (2017): ~145k HTTP requests/s on
//           one CPU for a 0 KB file over keep-alive connections.
//  [CAI]    Cai et al., "Understanding Host Network Stack Overheads", SIGCOMM 2021: with TSO/GRO one core moves
//           ~42 Gbps and the receive-side data copy is the dominant per-byte cost.
const DEFAULTS: readonly DefaultRow[] = [
  { step: "nicRx", packetNs: 250, covers: "driver poll, skb alloc, GRO attempt, netif_receive_skb", source: "[XDP] [BROUER]" },
  { step: "nicTx", packetNs: 150, covers: "qdisc enqueue/dequeue, driver xmit, completion free", source: "[BROUER]" },
  { step: "parse", packetNs: 150, covers: "one pass of the IP layer: ip_rcv/ip_rcv_core header checks, ip_rcv_finish, then ip_forward or ip_local_deliver bookkeeping (TTL, dst, skb_cow checks)", source: "[BROUER] ~4-5 cache misses at 32 ns" },
  { step: "routeLookup", packetNs: 40, covers: "fib_table_lookup for input or output routing", source: "[XDP] routing use case" },
  { step: "netfilterHook", packetNs: 60, covers: "one table run at a hook (nf_hook_slow's indirect call, ipt_do_table's entry: bh off, recseq, jumpstack, per-cpu counters)", source: "[CF] raw vs filter drop rates, [BROUER]" },
  { step: "netfilterRule", packetNs: 40, covers: "one iptables rule evaluated by ipt_do_table (ip_packet_match: addresses, interfaces, protocol; the target if it matches)", source: "[IPTRULE] ~190 cycles per `-p tcp --dport` rule = rule + one match module" },
  { step: "netfilterMatch", packetNs: 20, covers: "one xt match module a rule calls once ip_packet_match passed (tcp/udp ports, mark, conntrack, comment, addrtype, ...): an indirect call and its check", source: "[IPTRULE] (the module's share of the ~190 cycles)" },
  { step: "conntrackLookup", packetNs: 350, covers: "a tracked packet of an existing flow in one namespace: nf_conntrack_in's hash lookup and refcount, TCP window tracking under ct->lock, timeout refresh, and the other conntrack hook functions it passes (defrag, the NAT binding checks at PREROUTING/POSTROUTING, confirm); or a CT map lookup", source: "[CTHALF] [BROUER] ~6 cache misses, a spin lock" },
  { step: "conntrackInsert", packetNs: 800, covers: "allocate, initialise and confirm a new conntrack entry (locks, hash insert)", source: "[CF] [CTHALF]" },
  { step: "natRewrite", packetNs: 60, covers: "address/port rewrite with RFC 1624 incremental checksum update", source: "[BROUER] few L2 hits" },
  { step: "policyLookup", packetNs: 40, covers: "NetworkPolicy decision: policy-map hash probes for one packet", source: "[XDP] map lookups" },
  { step: "bpfProgram", packetNs: 40, covers: "one tc/XDP program invocation (context setup, JITed entry/exit)", source: "[XDP] 24 Mpps/core" },
  { step: "bpfMapLookup", packetNs: 15, covers: "bpf_map_lookup_elem on a hash/LPM map", source: "[XDP]" },
  { step: "bpfMapUpdate", packetNs: 60, covers: "bpf_map_update_elem (insert with allocation)", source: "[XDP] [BROUER] spin lock" },
  { step: "bridgeFdbLookup", packetNs: 60, covers: "br_handle_frame, FDB hash lookup, br_forward", source: "[BROUER]" },
  { step: "vethCrossing", packetNs: 700, covers: "veth_xmit, __dev_forward_skb (skb_scrub_packet, eth_type_trans), netif_rx's backlog enqueue, net_rx_action/process_backlog and __netif_receive_skb_core in the peer namespace, on an skb cold in the new context", source: "[SLIM] second pass, [BROUER] ~12 cache misses and 2 locks" },
  { step: "vxlanEncap", packetNs: 350, covers: "vxlan_xmit: FDB lookup, IPv4/UDP/VXLAN headers, udp_tunnel_xmit_skb (the outer route lookup counts as routeLookup)", source: "[SLIM]" },
  { step: "vxlanDecap", packetNs: 450, covers: "udp_rcv + vxlan_rcv + gro_cells: the rest of a second stack pass (outer ip_rcv counts as parse + routeLookup)", source: "[SLIM]" },
  { step: "ipipEncap", packetNs: 200, covers: "ipip_tunnel_xmit: outer IPv4 header (the outer route lookup counts as routeLookup)", source: "[SLIM]" },
  { step: "ipipDecap", packetNs: 300, covers: "ipip_rcv + netif_rx of the inner packet (outer ip_rcv counts as parse + routeLookup)", source: "[SLIM]" },
  { step: "checksum", packetNs: 0, byteNs: 0.06, covers: "software checksum over payload bytes (csum_partial ~16 GB/s)", source: "[CAI]" },
  { step: "copy", packetNs: 0, byteNs: 0.1, covers: "copy between user and kernel buffers (~10 GB/s per core)", source: "[CAI] 42 Gbps/core with TSO/GRO" },
  { step: "socketDelivery", packetNs: 1500, covers: "a datagram through a socket: queueing, wakeup, send/recv syscall", source: "[CF] ~170 kpps to a UDP application" },
  { step: "tcpSegment", packetNs: 250, batchNs: 2000, covers: "per TCP segment (seq/ack, timers); per GSO/GRO batch: sendmsg/recvmsg, wakeup", source: "[CAI] [BROUER]" },
];

const NS_PER_SECOND = 1e9;
const MI = 1024 * 1024;

export const DEFAULT_COST_MODEL: CostModel = Object.freeze({
  referenceGHz: 3.0,
  cpuGHz: 3.0,
  steps: Object.freeze(
    Object.fromEntries(DEFAULTS.map((r) => [r.step, Object.freeze({ packetNs: r.packetNs, byteNs: r.byteNs ?? 0, batchNs: r.batchNs ?? 0 })])),
  ) as CostModel["steps"],
  // The seed lab's workers: 45-49m and ~920Mi per node with ~25m / ~100Mi of pods on them.
  systemCpuNanoCores: 20_000_000,
  systemMemoryBytes: 768 * MI,
  idleCpuNanoCores: 100_000,
  idleMemoryBytes: 1 * MI,
  // [NGINX] ~145,000 requests/s per core for a 0-byte file over keep-alive: ~7 µs per request, kernel included.
  idleRequestCpuNs: 7_000,
  // nf_conntrack slab objects are 320 bytes on x86_64 (slabinfo "nf_conntrack").
  conntrackEntryBytes: 320,
  // metrics-server's default --metric-resolution.
  resolutionNs: 15 * NS_PER_SECOND,
});

/** Where each default comes from, for reports and the README. */
export function costSources(): readonly { step: CostStep; covers: string; source: string }[] {
  return DEFAULTS.map(({ step, covers, source }) => ({ step, covers, source }));
}

/** Multiplier from reference-clock nanoseconds to this model's CPU. */
export function clockScale(model: CostModel): number {
  return model.referenceGHz / model.cpuGHz;
}
