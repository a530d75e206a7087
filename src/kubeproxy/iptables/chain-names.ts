// Chain names of kube-proxy's iptables mode: the fixed top-level chains and the per-service /
// per-endpoint chains named by a hash (sha256 of service-port name + protocol [+ endpoint],
// base32, first 16 characters), as pkg/proxy/iptables/proxier.go names them.
import { createHash } from "node:crypto";

export const KubeChain = {
  SERVICES: "KUBE-SERVICES",
  EXTERNAL_SERVICES: "KUBE-EXTERNAL-SERVICES",
  NODEPORTS: "KUBE-NODEPORTS",
  POSTROUTING: "KUBE-POSTROUTING",
  MARK_MASQ: "KUBE-MARK-MASQ",
  FORWARD: "KUBE-FORWARD",
  PROXY_FIREWALL: "KUBE-PROXY-FIREWALL",
  PROXY_CANARY: "KUBE-PROXY-CANARY",
  /** The anti-martian chain kubelet also creates. */
  FIREWALL: "KUBE-FIREWALL",
} as const;

export const ChainPrefix = {
  CLUSTER_POLICY: "KUBE-SVC-",
  LOCAL_POLICY: "KUBE-SVL-",
  FIREWALL: "KUBE-FW-",
  EXTERNAL: "KUBE-EXT-",
  ENDPOINT: "KUBE-SEP-",
} as const;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/** RFC 4648 base32 (the alphabet Go's base32.StdEncoding uses), first `chars` characters. */
function base32Prefix(bytes: Uint8Array, chars: number): string {
  let out = "";
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < bytes.length && out.length < chars; i++) {
    acc = (acc << 8) | bytes[i]!;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += BASE32[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** The 16-character hash kube-proxy derives chain names from. */
export function chainHash(text: string): string {
  return base32Prefix(createHash("sha256").update(text, "utf8").digest(), 16);
}

/** "ns/name:port" (":port" only when the port has a name), as proxy.ServicePortName.String(). */
export function servicePortNameString(namespace: string, name: string, portName: string): string {
  return portName === "" ? `${namespace}/${name}` : `${namespace}/${name}:${portName}`;
}

export interface ServiceChainNames {
  readonly cluster: string;
  readonly local: string;
  readonly firewall: string;
  readonly external: string;
}

/** KUBE-SVC/SVL/FW/EXT names of a service port; `protocol` lower case ("tcp"). */
export function serviceChainNames(portName: string, protocol: string): ServiceChainNames {
  const h = chainHash(portName + protocol);
  return {
    cluster: ChainPrefix.CLUSTER_POLICY + h,
    local: ChainPrefix.LOCAL_POLICY + h,
    firewall: ChainPrefix.FIREWALL + h,
    external: ChainPrefix.EXTERNAL + h,
  };
}

/** KUBE-SEP name of one endpoint ("ip:port") of a service port. */
export function endpointChainName(portName: string, protocol: string, endpoint: string): string {
  return ChainPrefix.ENDPOINT + chainHash(portName + protocol + endpoint);
}

/** True for chains kube-proxy creates per service or endpoint (and deletes when stale). */
export function isServiceChainName(name: string): boolean {
  return Object.values(ChainPrefix).some((p) => name.startsWith(p));
}
