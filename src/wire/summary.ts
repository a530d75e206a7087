// summarize(layers): one tcpdump-like line per packet ("IP src.port > dst.port: Flags [S.], ...").
// Tunnels print outer then inner, joined by ": " on the same line; an ICMP error names the packet it
// quotes, as tcpdump does. Application payloads are not decoded (tcpdump's ": HTTP ..." suffixes).
import { tcpdumpFlags, tcpFlagsFromLetters } from "./tcp.js";
import type { GeneveLayer, Icmpv6Layer, IcmpLayer, Ipv4Layer, Ipv6Layer, Layer, SctpLayer, TcpLayer, UdpLayer } from "./layers.js";
import { SCTP_CHUNK_NAMES } from "./sctp.js";

const ICMP_NAMES: Record<number, string> = {
  0: "echo reply",
  3: "destination unreachable",
  4: "source quench",
  5: "redirect",
  8: "echo request",
  11: "time exceeded",
  12: "parameter problem",
};

const ICMPV6_NAMES: Record<number, string> = {
  1: "destination unreachable",
  2: "packet too big",
  3: "time exceeded",
  4: "parameter problem",
  128: "echo request",
  129: "echo reply",
  133: "router solicitation",
  134: "router advertisement",
  135: "neighbor solicitation",
  136: "neighbor advertisement",
  137: "redirect",
};

/** Length of the payload layer after index as the headers announce it (tcpdump's "length"). */
function payloadLength(layers: readonly Layer[], index: number): number {
  const next = layers[index + 1];
  return next?.proto === "payload" ? (next.wireLen ?? next.len) : 0;
}

function tcpText(t: TcpLayer, dataLength: number): string {
  const parts = [`Flags [${tcpdumpFlags(tcpFlagsFromLetters(t.flags))}]`];
  // tcpdump shows seq only when the segment occupies sequence space (data, SYN, FIN) or resets.
  if (dataLength > 0) parts.push(`seq ${t.seq}:${(t.seq + dataLength) % 0x100000000}`);
  else if (/[SFR]/.test(t.flags)) parts.push(`seq ${t.seq}`);
  if (t.flags.includes("A")) parts.push(`ack ${t.ack}`);
  parts.push(`win ${t.window}`);
  if (t.options !== undefined) parts.push(`options [${t.options}]`);
  parts.push(`length ${dataLength}`);
  return parts.join(", ");
}

type Quoted = { ip: Ipv4Layer | Ipv6Layer | undefined; l4: Layer | undefined };

/** tcpdump's "<quoted dst> udp port P" for a quoted UDP/TCP packet, or just the quoted destination. */
function quotedTarget(q: Quoted): string {
  if (!q.ip) return "";
  const l4 = q.l4;
  return l4?.proto === "udp" || l4?.proto === "tcp" ? `${q.ip.dst} ${l4.proto} port ${l4.dstPort}` : q.ip.dst;
}

function icmpText(l: IcmpLayer, length: number, q: Quoted): string {
  if (l.type === 3 && l.code === 3 && q.ip) return `ICMP ${quotedTarget(q)} unreachable, length ${length}`;
  if (l.type === 11 && l.code === 0) return `ICMP time exceeded in-transit, length ${length}`;
  const name = ICMP_NAMES[l.type] ?? `type ${l.type}`;
  const echo = l.id !== undefined ? `, id ${l.id}, seq ${l.seq}` : l.code !== 0 ? ` (code ${l.code})` : "";
  return `ICMP ${name}${echo}, length ${length}`;
}

function icmpv6Text(l: Icmpv6Layer, length: number, q: Quoted): string {
  if (l.type === 1 && l.code === 4 && q.ip) {
    return `ICMP6, destination unreachable, unreachable port, ${quotedTarget(q)}, length ${length}`;
  }
  if (l.type === 3 && l.code === 0 && q.ip) return `ICMP6, time exceeded in-transit for ${q.ip.dst}, length ${length}`;
  const name = ICMPV6_NAMES[l.type] ?? `type ${l.type}`;
  let detail = l.id !== undefined ? `, id ${l.id}, seq ${l.seq}` : l.code !== 0 ? ` (code ${l.code})` : "";
  if (l.target !== undefined) detail += l.type === 135 ? `, who has ${l.target}` : `, tgt is ${l.target}`;
  return `ICMP6, ${name}${detail}, length ${length}`;
}

function geneveText(g: GeneveLayer): string {
  const flags = (g.oam ? "O" : "") + (g.critical ? "C" : "");
  let text = `Geneve, Flags [${flags || "none"}], vni 0x${g.vni.toString(16)}`;
  if (g.protocolType !== 0x6558) text += `, proto 0x${g.protocolType.toString(16).padStart(4, "0")}`;
  return g.optionsLen > 0 ? `${text}, options [${g.optionsLen} bytes]` : text;
}

/** Upper-layer length the IP header announces. */
function ipPayloadLength(ip: Ipv4Layer | Ipv6Layer): number {
  return ip.proto === "ipv4" ? ip.len - ip.hdrLen : ip.payloadLen;
}

function ipText(ip: Ipv4Layer | Ipv6Layer, l4: TcpLayer | UdpLayer | SctpLayer | undefined): string {
  const family = ip.proto === "ipv4" ? "IP" : "IP6";
  return l4 ? `${family} ${ip.src}.${l4.srcPort} > ${ip.dst}.${l4.dstPort}` : `${family} ${ip.src} > ${ip.dst}`;
}

export function summarize(layers: readonly Layer[]): string {
  const parts: string[] = [];
  let ip: Ipv4Layer | Ipv6Layer | undefined;
  for (let i = 0; i < layers.length; i++) {
    const layer = layers[i]!;
    const next = layers[i + 1];
    switch (layer.proto) {
      case "eth":
      case "sll":
        if (next === undefined || next.proto === "payload") parts.push(`${layer.src} > ${"dst" in layer ? layer.dst : "any"}`);
        break;
      case "vlan":
        parts.push(`vlan ${layer.id}, p ${layer.pcp}`);
        break;
      case "arp":
        if (layer.op === 1) parts.push(`ARP, Request who-has ${layer.targetIp} tell ${layer.senderIp}, length 28`);
        else if (layer.op === 2) parts.push(`ARP, Reply ${layer.senderIp} is-at ${layer.senderMac}, length 28`);
        else parts.push(`ARP, op ${layer.op}, ${layer.senderIp} > ${layer.targetIp}, length 28`);
        break;
      case "ipv4":
      case "ipv6":
        ip = layer;
        parts.push(ipText(layer, next?.proto === "tcp" || next?.proto === "udp" || next?.proto === "sctp" ? next : undefined));
        break;
      case "tcp":
        parts.push(tcpText(layer, payloadLength(layers, i)));
        i += next?.proto === "payload" ? 1 : 0;
        break;
      case "udp":
        if (next?.proto === "vxlan" || next?.proto === "geneve") break; // tcpdump prints the tunnel header instead
        parts.push(`UDP, length ${layer.len - 8}`);
        i += next?.proto === "payload" && next.protocol === undefined ? 1 : 0;
        break;
      case "icmp":
      case "icmpv6": {
        // Like tcpdump, an ICMP error names the packet it quotes instead of printing it as a layer.
        const quotedIp = next?.proto === "ipv4" || next?.proto === "ipv6" ? next : undefined;
        const q: Quoted = { ip: quotedIp, l4: quotedIp ? layers[i + 2] : undefined };
        const length = ip ? ipPayloadLength(ip) : 0;
        parts.push(layer.proto === "icmp" ? icmpText(layer, length, q) : icmpv6Text(layer, length, q));
        i = quotedIp ? layers.length : i + (next?.proto === "payload" ? 1 : 0);
        break;
      }
      case "sctp":
        // tcpdump: "sctp (N) [INIT] ..." with the number of chunks and each chunk's name.
        parts.push(`sctp (${layer.chunks.length})${layer.chunks.map((c) => ` [${(SCTP_CHUNK_NAMES[c] ?? `chunk ${c}`).replace("_", " ")}]`).join("")}`);
        break;
      case "vxlan":
        parts.push(`VXLAN, flags [${layer.flags & 0x08 ? "I" : "."}] (0x${layer.flags.toString(16).padStart(2, "0")}), vni ${layer.vni}`);
        break;
      case "geneve":
        parts.push(geneveText(layer));
        break;
      case "payload":
        if (layer.etherType !== undefined) parts.push(`ethertype 0x${layer.etherType.toString(16).padStart(4, "0")}, length ${layer.len}`);
        else if (layer.fragment && ip?.proto === "ipv4") {
          const more = ip.flags.includes("MF") ? "+" : "";
          parts.push(`ip-proto-${layer.protocol} (frag ${ip.id}:${ip.len - ip.hdrLen}@${ip.fragOffset * 8}${more})`);
        } else if (layer.fragment) parts.push(`ip-proto-${layer.protocol} (frag)`);
        else if (layer.protocol !== undefined) parts.push(`ip-proto-${layer.protocol} ${layer.len}`);
        else parts.push(`data, length ${layer.len}`);
        break;
      case "error":
        parts.push(`[|${layer.layer}${layer.field ? `.${layer.field}` : ""} at ${layer.offset}: ${layer.reason}]`);
        break;
    }
  }
  return parts.join(": ");
}
