// A small real-model topology for kube-proxy behaviour tests, addresses and routes set by hand (no
// CNI yet): node "node-a" with eth0 10.1.8.31/24 on an Ethernet link to an external client
// 10.1.8.100 (default route via an absent gateway 10.1.8.2), and pods on veth pairs (/30 each, node side .1 of the pair, pod default route to it).
// Pods answer TCP SYNs on their serving port with SYN-ACK and record what they saw; the client and
// the pods record every TCP reply and ICMP error that reaches them.
import { Simulator } from "../../src/engine/simulator.js";
import { EthernetDevice } from "../../src/net/ethernet.js";
import { DEFAULT_LINK, Link } from "../../src/net/link.js";
import { NetNamespace, type SocketInfo } from "../../src/net/stack/index.js";
import { VethDevice } from "../../src/net/veth.js";
import { NetWorld } from "../../src/net/world.js";
import { SkBuff } from "../../src/skb/skbuff.js";
import { formatIPv4 } from "../../src/util/ip.js";
import { unwrap } from "../../src/util/result.js";
import { read16, read32 } from "../../src/wire/bytes.js";
import { TcpFlag } from "../../src/wire/tcp.js";
import { fields, ip, tcpPacket, udpPacket } from "./packets.js";

export const NODE_NAME = "node-a";
export const NODE_IP = "10.1.8.31";
export const CLIENT_IP = "10.1.8.100";

/** A TCP segment or ICMP error as a host received it. */
export interface Seen {
  readonly src: string;
  readonly dst: string;
  readonly sport: number;
  readonly dport: number;
  readonly flags: number;
  readonly checksumsOk: boolean;
  /** For ICMP: type, code and the quoted packet's addresses/ports. */
  readonly icmp?: { type: number; code: number; innerSrc: string; innerDst: string; innerDport: number; innerProto: number };
}

export class Host {
  readonly seen: Seen[] = [];
  private nextPort = 40000;
  constructor(
    readonly name: string,
    readonly ns: NetNamespace,
    readonly address: string,
  ) {
    ns.listenIcmp((skb, info) => this.seen.push(icmpSeen(skb, info)));
  }

  /** A fresh source port, bound so replies to it are recorded. */
  port(): number {
    const p = this.nextPort++;
    unwrap(this.ns.listenTcp(p, (skb, info) => this.seen.push(tcpSeen(skb, info))));
    unwrap(this.ns.bindUdp(p, (skb, info) => this.seen.push(tcpSeen(skb, info))));
    return p;
  }

  /** Sends a TCP SYN (or a UDP datagram) from a fresh port; returns the port. */
  connect(dst: string, dport: number, proto: "tcp" | "udp" = "tcp"): number {
    const sport = this.port();
    const src = ip(this.address);
    const bytes = proto === "tcp" ? tcpPacket(src, ip(dst), sport, dport) : udpPacket(src, ip(dst), sport, dport);
    this.ns.outputIp(SkBuff.fromBytes(this.ns.world.ledger.admit(), bytes));
    return sport;
  }
}

function tcpSeen(skb: SkBuff, info: SocketInfo): Seen {
  const f = fields(skb.data, info.ipOffset);
  const flags = info.proto === 6 ? skb.data[f.l4 + 13]! : 0;
  return { src: f.srcText, dst: f.dstText, sport: f.sport, dport: f.dport, flags, checksumsOk: f.headerChecksumOk && f.l4ChecksumOk };
}

function icmpSeen(skb: SkBuff, info: SocketInfo): Seen {
  const f = fields(skb.data, info.ipOffset);
  const b = skb.data;
  const inner = f.l4 + 8;
  const innerHl = (b[inner]! & 0x0f) * 4;
  return {
    src: f.srcText,
    dst: f.dstText,
    sport: 0,
    dport: 0,
    flags: 0,
    checksumsOk: f.headerChecksumOk && f.l4ChecksumOk,
    icmp: {
      type: b[f.l4]!,
      code: b[f.l4 + 1]!,
      innerSrc: formatIPv4(read32(b, inner + 12)),
      innerDst: formatIPv4(read32(b, inner + 16)),
      innerDport: read16(b, inner + innerHl + 2),
      innerProto: b[inner + 9]!,
    },
  };
}

/** A pod: a namespace behind a veth pair, answering SYNs on `servePort` with SYN-ACK. */
export class Pod extends Host {
  /** SYNs the pod received: the source it saw (after any SNAT) and the destination. */
  readonly syns: Seen[] = [];
  serve(servePort: number): void {
    unwrap(
      this.ns.listenTcp(servePort, (skb, info) => {
        const s = tcpSeen(skb, info);
        if ((s.flags & TcpFlag.SYN) === 0) return;
        this.syns.push(s);
        const reply = tcpPacket(ip(s.dst), ip(s.src), s.dport, s.sport, TcpFlag.SYN | TcpFlag.ACK, 5000, 1001);
        this.ns.outputIp(SkBuff.fromBytes(this.ns.world.ledger.admit(), reply));
      }),
    );
  }
}

export class Topology {
  readonly world: NetWorld;
  readonly node: NetNamespace;
  readonly client: Host;
  readonly pods = new Map<string, Pod>();
  private pairs = 0;

  constructor(seed = 1) {
    this.world = new NetWorld(new Simulator({ seed }));
    this.node = new NetNamespace(this.world, "node-a", NODE_NAME);
    this.node.sysctl.ipForward = true;
    const clientNs = new NetNamespace(this.world, "client", "client");
    const eNode = new EthernetDevice(this.world, "eth0", 0x02000a01081f, 1500);
    const eClient = new EthernetDevice(this.world, "eth0", 0x02000a010864, 1500);
    const link = new Link(this.world, eNode, eClient, DEFAULT_LINK);
    eNode.link = link;
    eClient.link = link;
    unwrap(this.node.addDevice(eNode));
    unwrap(clientNs.addDevice(eClient));
    unwrap(this.node.addAddress(eNode, ip(NODE_IP), 24));
    unwrap(clientNs.addAddress(eClient, ip(CLIENT_IP), 24));
    // The node's default route (the underlay gateway, absent here): ClusterIP traffic reaches FORWARD.
    unwrap(this.node.routes.add({ dst: 0, prefixLen: 0, via: ip("10.1.8.2") }));
    // The client reaches Service addresses through the node, as a static route would.
    unwrap(clientNs.routes.add({ dst: ip("10.96.0.0"), prefixLen: 12, via: ip(NODE_IP) }));
    this.client = new Host("client", clientNs, CLIENT_IP);
  }

  /** Adds pod `name` on the `index`-th /30 of 10.244.1.0/24; returns it. */
  addPod(name: string): Pod {
    const i = this.pairs++;
    const base = ip("10.244.1.0") + i * 4;
    const ns = new NetNamespace(this.world, name, NODE_NAME);
    const [hostEnd, podEnd] = VethDevice.pair(this.world, `veth${i}`, 0x02aa00000000 + i, "eth0", 0x02bb00000000 + i);
    unwrap(this.node.addDevice(hostEnd));
    unwrap(ns.addDevice(podEnd));
    unwrap(this.node.addAddress(hostEnd, base + 1, 30));
    unwrap(ns.addAddress(podEnd, base + 2, 30));
    unwrap(ns.routes.add({ dst: 0, prefixLen: 0, via: base + 1 }));
    const pod = new Pod(name, ns, formatIPv4(base + 2));
    this.pods.set(name, pod);
    return pod;
  }

  /** The node's address on the interface toward `podIP`. */
  nodeSideOf(podIP: string): string {
    return formatIPv4(ip(podIP) - 1);
  }

  run(): void {
    this.world.sim.run();
  }
}
