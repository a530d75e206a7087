// Runs upstream's "packet flow" cases through the real netfilter model instead of upstream's rule
// tracer: a node namespace holding NewFakeProxier's local addresses loads the generated ruleset;
// each flow sends many connection attempts (fresh source ports, so every one is a new conntrack
// entry and draws its own random numbers) through PREROUTING then INPUT/FORWARD, or OUTPUT for a
// locally generated packet, and reports the set of DNAT destinations (or DROP / REJECT) and
// whether the packet carries kube-proxy's masquerade mark.
import type { EndpointSlice } from "kubernetes-types/discovery/v1.js";
import { Simulator } from "../../src/engine/simulator.js";
import { DeviceKind, NetDevice } from "../../src/net/device.js";
import { NfHook, NfVerdict } from "../../src/net/netfilter/index.js";
import { NetNamespace } from "../../src/net/stack/index.js";
import { NetWorld } from "../../src/net/world.js";
import { buildEndpointsMap, buildRuleset, ensureJumpChains, natChainNames, proxierConfig, restoreRuleset, servicePorts, type ProxierConfigInput } from "../../src/kubeproxy/index.js";
import { SkBuff } from "../../src/skb/skbuff.js";
import { unwrap } from "../../src/util/result.js";
import { FAKE_PROXIER, type Service } from "./fixtures.js";
import { fields, ip, tcpPacket, udpPacket } from "./packets.js";

/** A NIC whose transmissions (REJECT's ICMP errors) are discarded. */
export class SinkDevice extends NetDevice {
  readonly kind = DeviceKind.ETHERNET;
  protected xmit(_skb: SkBuff): void {}
}

export interface Flow {
  readonly name: string;
  readonly sourceIP: string;
  readonly protocol?: "tcp" | "udp";
  readonly destIP: string;
  readonly destPort: number;
  /** Upstream's expected output: "ip:port, ip:port", "DROP", "REJECT" or "" (no rule matched). */
  readonly output: string;
  readonly masq?: boolean;
}

export interface FlowResult {
  readonly output: string;
  readonly masq: boolean;
}

/** The local addresses of NewFakeProxier's node (testNodeIP, testNodeIPAlt, testExternalIP). */
const NODE_ADDRESSES = ["192.168.0.2/24", "192.168.1.2/24", "192.168.99.11/24"];

export class FlowHarness {
  readonly world: NetWorld;
  readonly ns: NetNamespace;
  readonly dev: SinkDevice;
  private nextPort = 20000;

  constructor(seed = 1) {
    this.world = new NetWorld(new Simulator({ seed }));
    this.ns = new NetNamespace(this.world, "node", "test-node");
    this.dev = new SinkDevice(this.world, "eth0", 0x020000000002, 1500);
    unwrap(this.ns.addDevice(this.dev));
    for (const cidr of NODE_ADDRESSES) {
      const [a, p] = cidr.split("/");
      unwrap(this.ns.addAddress(this.dev, ip(a!), Number(p)));
    }
    unwrap(this.ns.routes.add({ dst: 0, prefixLen: 0, via: ip("192.168.0.1"), dev: this.dev }));
    this.ns.neigh.addStatic(this.dev, ip("192.168.0.1"), 0x020000000001);
    this.ns.sysctl.ipForward = true;
  }

  /** Generates the ruleset for these objects with the fake proxier's settings (overridable) and loads it. */
  load(services: readonly Service[], slices: readonly EndpointSlice[], config: Partial<ProxierConfigInput> = {}, nodeAddresses: readonly string[] = []): void {
    const cfg = unwrap(proxierConfig({ ...FAKE_PROXIER, nfacct: {}, ...config }));
    const nf = this.ns.netfilter;
    unwrap(ensureJumpChains(nf));
    const ruleset = buildRuleset(cfg, {
      services: services.flatMap((s) => servicePorts(s).ports),
      endpoints: buildEndpointsMap(slices, cfg.nodeName),
      existingNatChains: natChainNames(nf),
      nodeAddresses: nodeAddresses.map(ip),
    });
    const loaded = restoreRuleset(nf, ruleset.text);
    if (!loaded.ok) throw new Error(`restore failed at line ${loaded.error.line} (${loaded.error.lineText}): ${loaded.error.reason}`);
  }

  /** One connection attempt; returns the outcome and the mark. */
  private once(f: Flow, sport: number): { out: string; masq: boolean } {
    const src = ip(f.sourceIP);
    const dst = ip(f.destIP);
    const bytes = f.protocol === "udp" ? udpPacket(src, dst, sport, f.destPort) : tcpPacket(src, dst, sport, f.destPort);
    const skb = SkBuff.fromBytes(this.world.ledger.admit(), bytes);
    const nf = this.ns.netfilter;
    let v: number;
    if (this.ns.isLocalAddress(src)) {
      v = nf.run(NfHook.OUTPUT, skb, null, this.dev);
    } else {
      v = nf.run(NfHook.PREROUTING, skb, this.dev, null);
      if (v === NfVerdict.ACCEPT) {
        const to = fields(skb.data, skb.head).dst;
        v = this.ns.isLocalAddress(to) ? nf.run(NfHook.INPUT, skb, this.dev, null) : nf.run(NfHook.FORWARD, skb, this.dev, this.dev);
      }
    }
    const masq = (skb.mark & 0x4000) !== 0;
    if (v === NfVerdict.DROP) return { out: "DROP", masq };
    if (v === NfVerdict.STOLEN) return { out: "REJECT", masq };
    const after = fields(skb.data, skb.head);
    if (!after.headerChecksumOk || !after.l4ChecksumOk) throw new Error(`${f.name}: checksum broken after NAT`);
    if (after.dst === dst && after.dport === f.destPort) return { out: "", masq };
    return { out: `${after.dstText}:${after.dport}`, masq };
  }

  /** Runs `tries` attempts and merges them as upstream's tracer reports a flow. */
  trace(f: Flow, tries = 48): FlowResult {
    const outs = new Set<string>();
    const masqs = new Set<boolean>();
    for (let i = 0; i < tries; i++) {
      const r = this.once(f, this.nextPort++);
      outs.add(r.out);
      masqs.add(r.masq);
    }
    if (masqs.size !== 1) throw new Error(`${f.name}: masquerade mark differs between attempts`);
    const list = [...outs].sort();
    return { output: list.join(", "), masq: [...masqs][0]! };
  }
}

/** Upstream's expected output in the harness's order (sorted). */
export const sortedOutput = (output: string): string => (output === "" ? "" : output.split(", ").sort().join(", "));
