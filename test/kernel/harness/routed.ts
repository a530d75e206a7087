// The routed topology several kernel tests share, built identically in real namespaces and in the
// model:  A (raw endpoint, no address) -- va/vra -- R (router, ip_forward=1) -- vrb/vb -- B (host).
// A only injects and observes (its stack has no address, so it ignores what it receives); every
// neighbour entry is static (no ARP on the wire) and IPv6 is off, so the wire carries only the test's
// frames and the kernel's answers to them.

import type { NetDevice } from "../../../src/net/device.js";
import type { NetNamespace } from "../../../src/net/stack/namespace.js";
import type { KernelLab } from "./lab.js";
import type { ModelLab } from "./model.js";
import { ip4 } from "./frames.js";

export const NET = {
  aMac: "02:00:00:01:00:02",
  raMac: "02:00:00:01:00:01",
  rbMac: "02:00:00:02:00:01",
  bMac: "02:00:00:02:00:02",
  a: "10.200.1.2",
  ra: "10.200.1.1",
  rb: "10.200.2.1",
  b: "10.200.2.2",
} as const;

export interface RoutedOptions {
  /** MTU of the R -- B link (both ends). */
  readonly mtuB?: number;
  /** R and B resolve each other with ARP (no static entries between them). */
  readonly arpBetweenRAndB?: boolean;
  /** R's vrb gets no address (only a route to B's subnet): R's own packets toward B then take another interface's address. */
  readonly noAddressOnRb?: boolean;
}

export interface KernelRouted {
  readonly a: string;
  readonly r: string;
  readonly b: string;
}

export function buildKernelRouted(lab: KernelLab, opts: RoutedOptions = {}): KernelRouted {
  const a = lab.netns("a");
  const r = lab.netns("r");
  const b = lab.netns("b");
  lab.veth(a, "va", NET.aMac, r, "vra", NET.raMac);
  lab.veth(r, "vrb", NET.rbMac, b, "vb", NET.bMac, opts.mtuB ?? 1500);
  lab.ip(r, "addr", "add", `${NET.ra}/24`, "dev", "vra");
  if (opts.noAddressOnRb === true) lab.ip(r, "route", "add", "10.200.2.0/24", "dev", "vrb");
  else lab.ip(r, "addr", "add", `${NET.rb}/24`, "dev", "vrb");
  lab.ip(b, "addr", "add", `${NET.b}/24`, "dev", "vb");
  lab.ip(b, "route", "add", "default", "via", NET.rb);
  lab.sysctl(r, "net.ipv4.ip_forward", 1);
  lab.ip(r, "neigh", "add", NET.a, "lladdr", NET.aMac, "dev", "vra", "nud", "permanent");
  if (opts.arpBetweenRAndB !== true) {
    lab.ip(r, "neigh", "add", NET.b, "lladdr", NET.bMac, "dev", "vrb", "nud", "permanent");
    lab.ip(b, "neigh", "add", NET.rb, "lladdr", NET.rbMac, "dev", "vb", "nud", "permanent");
  }
  // Sockets in B (and R) then put the software checksum in the frame, not a partial one.
  lab.txChecksumOff(b, "vb");
  lab.txChecksumOff(r, "vra", "vrb");
  return { a, r, b };
}

export interface ModelRouted {
  readonly r: NetNamespace;
  /** Null when B is a raw endpoint that replays what the kernel's B sent. */
  readonly b: NetNamespace | null;
  readonly va: NetDevice;
  readonly vra: NetDevice;
  readonly vrb: NetDevice;
  readonly vb: NetDevice;
}

export function buildModelRouted(m: ModelLab, opts: RoutedOptions & { readonly rawB?: boolean } = {}): ModelRouted {
  const r = m.ns("r");
  const b = opts.rawB === true ? null : m.ns("b");
  const [va, vra] = m.veth(null, "va", NET.aMac, r, "vra", NET.raMac);
  const [vrb, vb] = m.veth(r, "vrb", NET.rbMac, b, "vb", NET.bMac, opts.mtuB ?? 1500);
  m.addr(r, vra, `${NET.ra}/24`);
  if (opts.noAddressOnRb === true) {
    const route = r.routes.add({ dst: ip4("10.200.2.0"), prefixLen: 24, dev: vrb });
    if (!route.ok) throw new Error(`model: route in r: ${JSON.stringify(route.error)}`);
  } else {
    m.addr(r, vrb, `${NET.rb}/24`);
  }
  r.sysctl.ipForward = true;
  m.neigh(r, vra, NET.a, NET.aMac);
  if (opts.arpBetweenRAndB !== true) m.neigh(r, vrb, NET.b, NET.bMac);
  if (b !== null) {
    m.addr(b, vb, `${NET.b}/24`);
    const route = b.routes.add({ dst: 0, prefixLen: 0, via: ip4(NET.rb), dev: vb });
    if (!route.ok) throw new Error(`model: default route in b: ${JSON.stringify(route.error)}`);
    if (opts.arpBetweenRAndB !== true) m.neigh(b, vb, NET.rb, NET.rbMac);
  }
  return { r, b, va, vra, vrb, vb };
}
