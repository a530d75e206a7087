// The controllers' PodIpAllocator shape over a CNI IPAM, so kubelets (the lab's controllers) take pod
// addresses from the same blocks the CNI routes: allocate(node, "ns/name/uid") / release(handle).
import { formatIPv4 } from "../../util/ip.js";
import type { Ipam } from "./types.js";

export interface PodAddressAllocator {
  allocate(node: string, podKey: string): string | null;
  release(podKey: string): void;
}

export function podIpAllocator(ipam: Ipam): PodAddressAllocator {
  return {
    allocate(node, podKey) {
      const pod = podKey.split("/").slice(0, 2).join("/");
      const r = ipam.assign({ pod, handle: podKey, node, requested: null });
      return r.ok ? formatIPv4(r.value) : null;
    },
    release(podKey) {
      ipam.release(podKey);
    },
  };
}
