// The ports a pod answers: every declared containerPort (TCP, UDP, SCTP), plus what well-known images
// listen on without declaring it (nginx: TCP 80; CoreDNS: 53 UDP and TCP, metrics on TCP 9153).
import type { Pod } from "kubernetes-types/core/v1.js";
import { ImageKind, imageKind } from "./image.js";

export const PortProtocol = { TCP: "TCP", UDP: "UDP", SCTP: "SCTP" } as const;
export type PortProtocol = (typeof PortProtocol)[keyof typeof PortProtocol];

export interface ServedPort {
  readonly protocol: PortProtocol;
  readonly port: number;
  /** The container that listens. */
  readonly container: string;
  readonly image: ImageKind;
}

const IMPLICIT: Partial<Record<ImageKind, readonly [PortProtocol, number][]>> = {
  [ImageKind.NGINX]: [["TCP", 80]],
  [ImageKind.COREDNS]: [["UDP", 53], ["TCP", 53], ["TCP", 9153]],
};

/** Every (protocol, port) the pod's containers listen on, the first container to claim a port owning it; sorted. */
export function servedPorts(pod: Pod | undefined): ServedPort[] {
  const out = new Map<string, ServedPort>();
  const add = (protocol: PortProtocol, port: number, container: string, image: ImageKind): void => {
    const key = `${protocol}/${port}`;
    if (!out.has(key)) out.set(key, { protocol, port, container, image });
  };
  for (const c of pod?.spec?.containers ?? []) {
    const kind = imageKind(c.image);
    for (const [protocol, port] of IMPLICIT[kind] ?? []) add(protocol, port, c.name, kind);
    for (const p of c.ports ?? []) add((p.protocol ?? "TCP") as PortProtocol, p.containerPort, c.name, kind);
  }
  return [...out.values()].sort((a, b) => a.port - b.port || (a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : 0));
}
