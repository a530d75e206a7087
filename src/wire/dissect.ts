// dissect(frame, linkType): decodes every header of a captured frame into JSON layers (layers.ts),
// outer first, entering tunnels (VXLAN on 4789/8472, Geneve on 6081, IPIP/6in4) and the packet quoted
// by ICMP errors. Cold path: clarity over speed. A header that fails becomes an error layer and ends it.
// This file walks link and IP headers; dissect-upper.ts decodes what IP carries.
import { formatIPv4, formatIPv6 } from "../util/ip.js";
import { formatMac } from "../util/mac.js";
import { EtherType, ETHERNET_HEADER_LENGTH, isVlanTpid, parseEthernet } from "./ethernet.js";
import { parseSll, parseSll2, SLL_HEADER_LENGTH, SLL2_HEADER_LENGTH } from "./sll.js";
import { parseVlan, VLAN_TAG_LENGTH } from "./vlan.js";
import { parseArp } from "./arp.js";
import { ipv4HeaderLen, parseIpv4 } from "./ipv4.js";
import { ipv6HeaderLength, Ipv6NextHeader, parseIpv6 } from "./ipv6.js";
import { verifyIpv4HeaderChecksum } from "./checksum.js";
import { LinkType, type Ipv4Layer, type Layer } from "./layers.js";
import { DONE, failed, payload, type IpContext, type Step } from "./dissect-steps.js";
import { decodeUpper } from "./dissect-upper.js";

const MAX_LAYERS = 32;
const IPPROTO_AH = Ipv6NextHeader.AH; // the same number in IPv4

export function dissect(frame: Uint8Array, linkType: number): Layer[] {
  const layers: Layer[] = [];
  let step = firstStep(frame, linkType, layers);
  while (step.kind !== "done") {
    if (layers.length >= MAX_LAYERS) {
      layers.push({ proto: "error", layer: stepLayerName(step), field: "", offset: step.offset, reason: `more than ${MAX_LAYERS} layers` });
      break;
    }
    step = decode(frame, step, layers);
  }
  return layers;
}

/** The layer a pending step would decode, for error reports. */
function stepLayerName(step: Exclude<Step, { kind: "done" }>): string {
  if (step.kind === "ether") return isVlanTpid(step.etherType) ? "vlan" : `ethertype 0x${step.etherType.toString(16)}`;
  if (step.kind !== "l4") return step.kind;
  const names: Record<number, string> = { 1: "icmp", 4: "ipv4", 6: "tcp", 17: "udp", 41: "ipv6", 58: "icmpv6", 132: "sctp" };
  return names[step.protocol] ?? `ip protocol ${step.protocol}`;
}

function firstStep(frame: Uint8Array, linkType: number, layers: Layer[]): Step {
  const whole = { offset: 0, end: frame.length, quoted: false };
  switch (linkType) {
    case LinkType.ETHERNET:
      return { kind: "eth", ...whole };
    case LinkType.RAW:
      return { kind: "ip", ...whole };
    case LinkType.IPV4:
      return { kind: "ipv4", ...whole };
    case LinkType.IPV6:
      return { kind: "ipv6", ...whole };
    case LinkType.LINUX_SLL:
      return { kind: "sll", ...whole };
    case LinkType.LINUX_SLL2:
      return { kind: "sll2", ...whole };
    default:
      layers.push({ proto: "error", layer: "link", field: "linkType", offset: 0, reason: `unsupported link type ${linkType}` });
      return DONE;
  }
}

function decode(frame: Uint8Array, step: Exclude<Step, { kind: "done" }>, layers: Layer[]): Step {
  switch (step.kind) {
    case "eth":
      return decodeEthernet(frame, step.offset, step.end, layers);
    case "sll":
    case "sll2":
      return decodeSll(frame, step.kind, step.offset, step.end, layers);
    case "ether":
      return dispatchEtherType(frame, step.etherType, step.offset, step.end, layers);
    case "ip": {
      const version = step.offset < step.end ? frame[step.offset]! >>> 4 : -1;
      if (version === 4 || version === 6) return { ...step, kind: version === 4 ? "ipv4" : "ipv6" };
      const reason = version < 0 ? "truncated: no IP header" : `version ${version}, expected 4 or 6`;
      return failed(layers, { layer: "ip", field: "version", offset: step.offset, reason });
    }
    case "ipv4":
      return decodeIpv4(frame, step.offset, step.end, step.quoted, layers);
    case "ipv6":
      return decodeIpv6(frame, step.offset, step.end, step.quoted, layers);
    case "l4":
      return decodeUpper(frame, step.protocol, step.offset, step.end, step.ip, layers);
  }
}

function decodeEthernet(frame: Uint8Array, offset: number, end: number, layers: Layer[]): Step {
  const r = parseEthernet(frame, offset, end);
  if (!r.ok) return failed(layers, r.error);
  const { src, dst, etherType } = r.value;
  layers.push({ proto: "eth", src: formatMac(src), dst: formatMac(dst), type: etherType });
  return { kind: "ether", offset: offset + ETHERNET_HEADER_LENGTH, end, etherType };
}

function decodeSll(frame: Uint8Array, kind: "sll" | "sll2", offset: number, end: number, layers: Layer[]): Step {
  const r = kind === "sll" ? parseSll(frame, offset, end) : parseSll2(frame, offset, end);
  if (!r.ok) return failed(layers, r.error);
  const v = r.value;
  const src = Array.from(v.address, (b) => b.toString(16).padStart(2, "0")).join(":");
  const base = { proto: "sll", pktType: v.packetType, hatype: v.arphrdType, src, type: v.protocol } as const;
  layers.push(kind === "sll" ? { ...base, version: 1 } : { ...base, version: 2, ifindex: v.interfaceIndex });
  const length = kind === "sll" ? SLL_HEADER_LENGTH : SLL2_HEADER_LENGTH;
  return { kind: "ether", offset: offset + length, end, etherType: v.protocol };
}

function dispatchEtherType(frame: Uint8Array, etherType: number, offset: number, end: number, layers: Layer[]): Step {
  if (etherType === EtherType.IPV4) return { kind: "ipv4", offset, end, quoted: false };
  if (etherType === EtherType.IPV6) return { kind: "ipv6", offset, end, quoted: false };
  if (etherType === EtherType.TRANSPARENT_ETHERNET) return { kind: "eth", offset, end, quoted: false };
  if (isVlanTpid(etherType)) {
    const r = parseVlan(frame, offset, end);
    if (!r.ok) return failed(layers, r.error);
    const v = r.value;
    layers.push({ proto: "vlan", id: v.vid, pcp: v.pcp, dei: v.dei, type: v.etherType });
    return { kind: "ether", offset: offset + VLAN_TAG_LENGTH, end, etherType: v.etherType };
  }
  if (etherType === EtherType.ARP) {
    const r = parseArp(frame, offset, end);
    if (!r.ok) return failed(layers, r.error);
    const a = r.value;
    layers.push({
      proto: "arp",
      op: a.operation,
      senderMac: formatMac(a.senderMac),
      senderIp: formatIPv4(a.senderIp),
      targetMac: formatMac(a.targetMac),
      targetIp: formatIPv4(a.targetIp),
    });
    return DONE;
  }
  return payload(layers, offset, end, end, { etherType });
}

function ipv4FlagText(df: boolean, mf: boolean): string {
  return df && mf ? "DF+MF" : df ? "DF" : mf ? "MF" : "";
}

function decodeIpv4(frame: Uint8Array, offset: number, end: number, quoted: boolean, layers: Layer[]): Step {
  const r = parseIpv4(frame, offset, end);
  if (!r.ok) return failed(layers, r.error);
  const ip = r.value;
  const headerLength = ipv4HeaderLen(frame, offset);
  const datagramEnd = offset + ip.totalLength;
  const truncated = datagramEnd > end;
  const captureEnd = truncated ? end : datagramEnd;
  const layer: Ipv4Layer = {
    proto: "ipv4",
    src: formatIPv4(ip.src),
    dst: formatIPv4(ip.dst),
    ttl: ip.ttl,
    protocol: ip.protocol,
    len: ip.totalLength,
    id: ip.identification,
    flags: ipv4FlagText(ip.dontFragment, ip.moreFragments),
    fragOffset: ip.fragmentOffset / 8,
    hdrLen: headerLength,
    checksumOk: verifyIpv4HeaderChecksum(frame, offset, headerLength),
    ...(quoted ? { quoted: true as const } : {}),
  };
  layers.push(layer);
  let at = offset + headerLength;
  if (ip.moreFragments || ip.fragmentOffset !== 0) {
    return payload(layers, at, captureEnd, datagramEnd, { protocol: ip.protocol, fragment: true });
  }
  // Walk IPsec AH (transport mode) to the protocol it protects, as tshark does.
  let protocol = ip.protocol;
  while (protocol === IPPROTO_AH && at + 2 <= captureEnd) {
    const ahLength = (frame[at + 1]! + 2) * 4;
    if (at + ahLength > captureEnd) break;
    (layer.ext ??= []).push(IPPROTO_AH);
    protocol = frame[at]!;
    at += ahLength;
  }
  const context: IpContext = {
    version: 4,
    src4: ip.src,
    dst4: ip.dst,
    ip6Offset: -1,
    l4Length: datagramEnd - at,
    truncated,
    quoted,
  };
  return { kind: "l4", offset: at, end: captureEnd, protocol, ip: context };
}

function decodeIpv6(frame: Uint8Array, offset: number, end: number, quoted: boolean, layers: Layer[]): Step {
  const r = parseIpv6(frame, offset, end);
  if (!r.ok) return failed(layers, r.error);
  const ip = r.value;
  const datagramEnd = offset + 40 + ip.payloadLength;
  const truncated = datagramEnd > end;
  const captureEnd = truncated ? end : datagramEnd;
  const at = offset + ipv6HeaderLength(ip);
  layers.push({
    proto: "ipv6",
    src: formatIPv6(ip.src),
    dst: formatIPv6(ip.dst),
    nextHeader: frame[offset + 6]!,
    hopLimit: ip.hopLimit,
    payloadLen: ip.payloadLength,
    ...(ip.extensions.length > 0 ? { ext: ip.extensions.map((e) => e.type) } : {}),
    protocol: ip.protocol,
    ...(quoted ? { quoted: true as const } : {}),
  });
  const fragment = ip.extensions.find((e) => e.type === Ipv6NextHeader.FRAGMENT);
  if (fragment?.type === Ipv6NextHeader.FRAGMENT && (fragment.fragmentOffset !== 0 || fragment.moreFragments)) {
    return payload(layers, at, captureEnd, datagramEnd, { protocol: ip.protocol, fragment: true });
  }
  const context: IpContext = { version: 6, src4: 0, dst4: 0, ip6Offset: offset, l4Length: datagramEnd - at, truncated, quoted };
  return { kind: "l4", offset: at, end: captureEnd, protocol: ip.protocol, ip: context };
}

