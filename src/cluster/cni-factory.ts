// Chooses and creates the CNI plugin the Cluster file asks for, refusing unsupported combinations with
// an error that names the Cluster file and the field.
import { CalicoPlugin } from "../cni/calico/plugin.js";
import { CalicoMode } from "../cni/calico/routes.js";
import type { BgpTransport } from "../cni/calico/bgp/transport.js";
import { BridgePlugin } from "../cni/bridge/plugin.js";
import { FlannelBackend, FlannelPlugin } from "../cni/flannel/plugin.js";
import { MacvlanPlugin } from "../cni/macvlan/plugin.js";
import type { CniContext, CniNode, CniPlugin } from "../cni/plugin.js";
import { err, ok, type Result } from "../util/result.js";
import type { ClusterError } from "./errors.js";

export interface CniFactoryOptions {
  /** The Cluster file path (named in errors). */
  readonly source: string;
  readonly bgpTransport: ((node: CniNode) => BgpTransport) | null;
  /** MAC of the underlay device holding an address (for the eBPF FIB). */
  readonly underlayMac: (ip: number) => number | undefined;
}

const CALICO_MODES: readonly string[] = Object.values(CalicoMode);
const FLANNEL_BACKENDS: readonly string[] = Object.values(FlannelBackend);

export function createCniPlugin(ctx: CniContext, o: CniFactoryOptions): Result<CniPlugin, ClusterError> {
  const cni = ctx.network.cni;
  const fail = (reason: string): Result<never, ClusterError> => err({ source: o.source, reason });
  if (cni.dataplane === "ebpf" && cni.plugin !== "calico") return fail(`spec.cni.dataplane: ebpf is only available with plugin calico (got ${cni.plugin})`);
  const block = cni.blockSize;
  if (block !== null && block < cni.podCIDR.prefixLength) return fail(`spec.cni.blockSize: /${block} blocks do not fit in the pod CIDR ${cni.podCIDR.text}`);
  if (block !== null && cni.plugin !== "calico" && ctx.nodes.length > 2 ** (block - cni.podCIDR.prefixLength)) {
    return fail(`spec.cni.podCIDR: ${cni.podCIDR.text} has only ${2 ** (block - cni.podCIDR.prefixLength)} /${block} subnets for ${ctx.nodes.length} nodes`);
  }
  switch (cni.plugin) {
    case "calico": {
      const mode = cni.mode ?? CalicoMode.IPIP;
      if (!CALICO_MODES.includes(mode)) return fail(`spec.cni.mode: calico supports ${CALICO_MODES.join(", ")} (got ${mode})`);
      return ok(new CalicoPlugin(ctx, { mode: mode as CalicoMode, dataplane: cni.dataplane, bgpTransport: o.bgpTransport, underlayMac: o.underlayMac }));
    }
    case "flannel":
    case "canal": {
      const backend = cni.mode ?? FlannelBackend.VXLAN;
      if (!FLANNEL_BACKENDS.includes(backend)) return fail(`spec.cni.mode: ${cni.plugin} supports ${FLANNEL_BACKENDS.join(", ")} (got ${backend})`);
      const checked = FlannelPlugin.check(ctx, backend as FlannelBackend, o.source);
      if (!checked.ok) return err({ source: checked.error.subject, reason: checked.error.reason });
      return ok(new FlannelPlugin(ctx, { backend: backend as FlannelBackend, canal: cni.plugin === "canal" }));
    }
    case "bridge":
      if (ctx.nodes.length !== 1) return fail(`spec.cni.plugin: bridge is a single-host network (docker0) but the cluster has ${ctx.nodes.length} nodes`);
      return ok(new BridgePlugin(ctx));
    case "macvlan":
      return ok(new MacvlanPlugin(ctx));
  }
}
