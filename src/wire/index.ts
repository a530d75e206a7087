// The wire layer's public surface in one import: header views, Reprs, parse/emit, checksums, the
// fast-path ParsedHeaders, dissect and summarize. Importing a single module directly works as well.
export * from "./bytes.js";
export * from "./errors.js";
export * from "./checksum.js";
export * from "./nat-rewrite.js";
export * from "./ethernet.js";
export * from "./vlan.js";
export * from "./arp.js";
export * from "./sll.js";
export * from "./ipv4.js";
export * from "./ipv6.js";
export * from "./icmp.js";
export * from "./icmpv6.js";
export * from "./udp.js";
export * from "./tcp.js";
export * from "./sctp.js";
export * from "./vxlan.js";
export * from "./geneve.js";
export * from "./ipip.js";
export * from "./headers.js";
export * from "./layers.js";
export * from "./dissect.js";
export * from "./summary.js";
