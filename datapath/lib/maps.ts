// The bundle of maps one node's datapath programs share (pinned maps in Cilium's /sys/fs/bpf/tc/globals):
// conntrack, ipcache, local endpoints, load balancing, tunnel, SNAT and the forwarding table.
import { ConntrackMap } from "../maps/conntrack.js";
import { EndpointMap } from "../maps/endpoint.js";
import { IpCache } from "../maps/ipcache.js";
import { LbMaps } from "../maps/lb.js";
import { SnatMap } from "../maps/nat.js";
import { TunnelMap } from "../maps/tunnel.js";
import { FibMap } from "./fib.js";

export interface DatapathMaps {
  readonly ct: ConntrackMap;
  readonly ipcache: IpCache;
  readonly endpoints: EndpointMap;
  readonly lb: LbMaps;
  readonly tunnel: TunnelMap;
  readonly snat: SnatMap;
  readonly fib: FibMap;
}

export interface DatapathMapSizes {
  ct?: number;
  ipcache?: number;
  endpoints?: number;
  lb?: number;
  tunnel?: number;
  snat?: number;
  fib?: number;
}

/**
 * Fresh maps for one node. LB and endpoint sizes are Cilium's defaults; conntrack and SNAT default to 64k
 * entries (Cilium: 512k). The conntrack map does not preallocate (noPrealloc): a simulated cluster has many
 * nodes and few connections per node.
 */
export function createDatapathMaps(sizes: DatapathMapSizes = {}): DatapathMaps {
  return {
    ct: new ConntrackMap(sizes.ct ?? 65536, { noPrealloc: true }),
    ipcache: new IpCache(sizes.ipcache ?? 512000),
    endpoints: new EndpointMap(sizes.endpoints ?? 65536),
    lb: new LbMaps(sizes.lb ?? 65536),
    tunnel: new TunnelMap(sizes.tunnel ?? 65536),
    snat: new SnatMap(sizes.snat ?? 65536),
    fib: new FibMap(sizes.fib ?? 4096),
  };
}
