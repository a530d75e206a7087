// Reads the counters the network model already keeps (device stats, tunnel and bridge stats, SNMP
// counters, netfilter rule and conntrack counters, datapath map stats, TCP counters) into Work, at
// scrape time: nothing here runs per packet. Charged where the kernel and the NIC spend the work: the
// NIC driver per wire frame (GRO merges frames only afterwards), socket payloads as copies (TCP and
// UDP), and checksums in software only when the NIC does not offload them (kernel
// Documentation/networking/checksum-offloads.rst: CHECKSUM_PARTIAL on transmit survives veth and
// forwarding, CHECKSUM_UNNECESSARY on receive, a VXLAN outer checksum by local checksum offload).
import type { DatapathMaps } from "../../datapath/lib/maps.js";
import type { MapStats } from "../../datapath/maps/errors.js";
import type { PolicyMap } from "../../datapath/maps/policy.js";
import { BridgeDevice } from "../net/bridge.js";
import { DeviceKind, type NetDevice } from "../net/device.js";
import type { NfTable } from "../net/netfilter/table/table.js";
import type { NetNamespace } from "../net/stack/namespace.js";
import { udpPayloadBytes } from "../net/udp-socket.js";
import { VxlanDevice, VXLAN_OVERHEAD } from "../net/vxlan.js";
import { STEP } from "./cost-model.js";
import type { TcpCounterView } from "./metered.js";
import type { Work } from "./work.js";

/** How the NICs handle checksums: offloaded (ethtool's defaults on a server NIC such as i40e) or in software. */
export interface CollectOptions {
  readonly checksumOffload: boolean;
}

export const OFFLOADED: CollectOptions = Object.freeze({ checksumOffload: true });

const NO_DEVICES: ReadonlySet<NetDevice> = new Set();

/** One device's own work: NIC or veth crossing, tunnel encap/decap, bridge lookups, attached programs. */
export function collectDevice(dev: NetDevice, w: Work, options: CollectOptions = OFFLOADED): void {
  const s = dev.stats;
  switch (dev.kind) {
    case DeviceKind.ETHERNET:
      // Every wire frame, including those GRO merged into one skb (rxPackets counts the merged skbs).
      w.add(STEP.nicRx, s.rxPackets + s.rxGroSegments - s.rxGroPackets, s.rxBytes);
      w.add(STEP.nicTx, s.txPackets, s.txBytes);
      break;
    case DeviceKind.VETH:
    case DeviceKind.LOOPBACK:
      // The crossing (netif_rx into the peer, backlog, receive) is charged once, on the sending side.
      w.add(STEP.vethCrossing, s.txPackets, s.txBytes);
      break;
    case DeviceKind.VXLAN:
      w.add(STEP.vxlanEncap, s.txPackets, s.txBytes);
      w.add(STEP.vxlanDecap, s.rxPackets, s.rxBytes);
      if (dev instanceof VxlanDevice && dev.udpCsum && !options.checksumOffload) w.add(STEP.checksum, 0, s.txBytes + VXLAN_OVERHEAD * s.txPackets);
      break;
    case DeviceKind.IPIP:
      w.add(STEP.ipipEncap, s.txPackets, s.txBytes);
      w.add(STEP.ipipDecap, s.rxPackets, s.rxBytes);
      break;
    case DeviceKind.BRIDGE:
      if (dev instanceof BridgeDevice) {
        const b = dev.bridgeStats;
        w.add(STEP.bridgeFdbLookup, b.forwarded + b.flooded + b.passedUp);
      }
      break;
    case DeviceKind.MACVLAN:
      break;
  }
  if (dev.xdp !== null) w.add(STEP.bpfProgram, s.rxPackets);
  if (dev.tcIngress !== null) w.add(STEP.bpfProgram, s.rxPackets);
  if (dev.tcEgress !== null) w.add(STEP.bpfProgram, s.txPackets);
}

/**
 * The counter holders of a namespace that collectNamespace would otherwise look up by name at every
 * read (its four netfilter tables), resolved once: they are fixed for the namespace's life.
 */
export interface NamespaceSources {
  readonly ns: NetNamespace;
  /** raw, mangle, nat and filter, in that order. */
  readonly tables: readonly NfTable[];
}

export function namespaceSources(ns: NetNamespace): NamespaceSources {
  const nf = ns.netfilter;
  return { ns, tables: [nf.table("raw"), nf.table("mangle"), nf.table("nat"), nf.table("filter")] };
}

/** Adds the tables' traversals (one ipt_do_table call each), the rules they evaluated and the match modules those called. */
function addRuleWork(tables: readonly NfTable[], w: Work): void {
  const raw = tables[0]!;
  const mangle = tables[1]!;
  const nat = tables[2]!;
  const filter = tables[3]!;
  w.add(STEP.netfilterHook, raw.traversals + mangle.traversals + nat.traversals + filter.traversals);
  w.add(STEP.netfilterRule, raw.rulesEvaluated + mangle.rulesEvaluated + nat.rulesEvaluated + filter.rulesEvaluated);
  w.add(STEP.netfilterMatch, raw.matchesEvaluated + mangle.matchesEvaluated + nat.matchesEvaluated + filter.matchesEvaluated);
}

/**
 * A namespace's stack work: IP input and routing, netfilter hooks and rules, conntrack, UDP sockets
 * and TCP (from `tcp` when the TCP layer keeps batch counters, else from the SNMP segment counts),
 * plus its devices except `skip` (devices charged elsewhere, e.g. a pod's host-side veth).
 */
export function collectNamespace(ns: NetNamespace, w: Work, tcp: TcpCounterView | null, skip: ReadonlySet<NetDevice> = NO_DEVICES, options: CollectOptions = OFFLOADED): void {
  collectNamespaceSources(namespaceSources(ns), w, tcp, skip, options);
}

/** collectNamespace for a namespace whose sources a frequent reader (a CPU budget's tick) resolved once. */
export function collectNamespaceSources(sources: NamespaceSources, w: Work, tcp: TcpCounterView | null, skip: ReadonlySet<NetDevice> = NO_DEVICES, options: CollectOptions = OFFLOADED): void {
  const ns = sources.ns;
  let tunnelDatagrams = 0;
  // Read at every CPU-budget tick of a bench cell: an empty skip set costs no lookup per device.
  const skipping = skip.size > 0;
  for (const dev of ns.devicesInOrder()) {
    if (dev.kind === DeviceKind.VXLAN) tunnelDatagrams += dev.stats.rxPackets;
    if (!skipping || !skip.has(dev)) collectDevice(dev, w, options);
  }
  const ip = ns.counters.ip;
  w.add(STEP.parse, ip.InReceives);
  w.add(STEP.routeLookup, ip.InReceives + ip.OutRequests);
  const nf = ns.netfilter;
  addRuleWork(sources.tables, w);
  w.add(STEP.natRewrite, nf.nat.rewrites);
  const ct = nf.conntrack.stats;
  w.add(STEP.conntrackLookup, ct.found + ct.insert);
  w.add(STEP.conntrackInsert, ct.insert);
  const udp = ns.counters.udp;
  w.add(STEP.socketDelivery, Math.max(0, udp.InDatagrams - tunnelDatagrams) + udp.OutDatagrams);
  const payload = udpPayloadBytes(ns);
  w.add(STEP.copy, 0, payload.sent + payload.received);
  if (tcp !== null) collectTcp(tcp, w, options);
  else {
    const segs = ns.counters.tcp.InSegs + ns.counters.tcp.OutSegs;
    w.add(STEP.tcpSegment, segs, 0, segs);
  }
}

/** TCP work: per segment, per GSO/GRO batch, and the payload copied (and checksummed without offload). */
export function collectTcp(tcp: TcpCounterView, w: Work, options: CollectOptions = OFFLOADED): void {
  w.add(STEP.tcpSegment, tcp.txSegments + tcp.rxSegments, 0, tcp.txBatches + tcp.rxBatches);
  const bytes = tcp.txBytes + tcp.rxBytes;
  w.add(STEP.copy, 0, bytes);
  if (!options.checksumOffload) w.add(STEP.checksum, 0, bytes);
}

function addLookups(w: Work, s: MapStats): void {
  w.add(STEP.bpfMapLookup, s.lookups);
  w.add(STEP.bpfMapUpdate, s.inserts);
}

/**
 * The eBPF datapath's map work on one node: every lookup and insert; conntrack entries created and
 * translations done (service frontends found, SNAT entries used) as their own steps.
 */
export function collectMaps(maps: DatapathMaps, w: Work): void {
  const ct = maps.ct.stats;
  w.add(STEP.conntrackLookup, ct.lookups);
  w.add(STEP.bpfMapUpdate, ct.inserts);
  for (const s of [maps.ipcache.v4.stats, maps.endpoints.table.stats, maps.tunnel.lpm.stats, maps.fib.lpm.stats]) addLookups(w, s);
  for (const s of [maps.lb.services.stats, maps.lb.backends.stats, maps.lb.revNat.stats, maps.lb.affinity.stats]) addLookups(w, s);
  addLookups(w, maps.snat.table.stats);
  w.add(STEP.natRewrite, maps.lb.services.stats.hits + maps.snat.table.stats.hits);
}

/** Policy decisions taken for one endpoint (its policy map's lookups). */
export function collectPolicy(map: PolicyMap, w: Work): void {
  w.add(STEP.policyLookup, map.stats.lookups);
}
