// Shape of cnisim's Cluster object; value rules (subnets, modes, ranges) live in checks/cluster.ts.
import { CNI_PLUGINS, DATAPLANES, NODE_ROLES } from "../cluster-types.js";
import { checkDns1123Label, checkDns1123Subdomain } from "../names.js";
import { nodeResourceList, taint } from "./cluster-objects.js";
import { labelMap, objectMeta, typeMeta } from "./meta.js";
import { bool, int, intOrString, list, obj, oneOf, opaque, str } from "./shape.js";
import { MAX_SEED } from "../../util/rng.js";

const clusterNode = obj(
  {
    name: str(checkDns1123Subdomain),
    role: oneOf(...NODE_ROLES),
    ip: str(),
    labels: labelMap,
    taints: list(taint),
    allocatable: nodeResourceList,
  },
  ["name", "ip"],
);

const spec = obj(
  {
    kubernetesVersion: str((v) => (/^v?\d+\.\d+(\.\d+)?$/.test(v) ? null : `invalid value ${JSON.stringify(v)}: must be a version such as v1.30.2`)),
    underlay: obj(
      {
        subnet: str(),
        gateway: str(),
        link: obj({ bandwidth: intOrString(), latency: intOrString(), mtu: int(68, 65535), queue: intOrString() }),
      },
      ["subnet"],
    ),
    nodes: list(clusterNode),
    externalHosts: list(obj({ name: str(checkDns1123Label), ip: str() }, ["name", "ip"])),
    cni: obj(
      {
        plugin: oneOf(...CNI_PLUGINS),
        mode: str(),
        dataplane: oneOf(...DATAPLANES),
        podCIDR: str(),
        blockSize: int(),
        mtu: int(68, 65535),
      },
      ["plugin"],
    ),
    serviceCIDR: str(),
    kubeProxy: obj({ mode: str(), clusterCIDR: str(), nodePortRange: str() }),
    seed: int(0, MAX_SEED),
    // Cluster add-ons kubeadm installs: dns (CoreDNS behind kube-system/kube-dns), default true.
    addons: obj({ dns: bool }),
    // CPU cost model overrides; the metrics layer validates them (src/metrics/cost-config.ts).
    costModel: opaque,
  },
  ["underlay", "nodes", "cni"],
);

export const clusterShape = obj({ ...typeMeta, metadata: objectMeta, spec }, ["spec"]);
