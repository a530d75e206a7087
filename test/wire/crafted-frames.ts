// Hand-built frames (see craft-frames.py) covering what the external captures lack: QinQ, IPv4 options,
// an IPv6 extension chain with AH, IPv6 fragments, TCP SACK + unknown options, an ICMP error quote, bad
// and absent checksums, Geneve with options and inner IPv4, VXLAN with inner IPv6, SLL, SLL2, raw IP.
// Expected values in the tests come from tshark 4.0.17 (-T json, -V) and tcpdump -nn -S -t on these bytes.
import { hex, type OracleFrame } from "./fixtures.js";

export const CRAFTED = {
  qinqIpv4OptUdp: hex(
    "02000000000202000000000188a86064810000c80800460000251234400040117f8d0a0000010a0000029404000004d20035000da2f868656c6c6f",
  ),
  ipv6ExtAhTcp: hex(
    "02000000000202000000000186dd600000000058004020010db800000000000000000000000120010db80000000100000000000000022b0001040000" +
      "00003c0000000000000033000104000000000604000000001000000000010000000000000000000000009c4001bb1122334400000000a002faf00b32" +
      "0000020405b40402080a010203040000000001030307",
  ),
  ipv6FragFirst: hex(
    "02000000000202000000000186dd6000000000202c4020010db800000000000000000000000120010db800000001000000000000000211000001abcd" +
      "ef01138817700030fb8e000102030405060708090a0b0c0d0e0f",
  ),
  ipv6FragSecond: hex(
    "02000000000202000000000186dd6000000000202c4020010db800000000000000000000000120010db800000001000000000000000211000018abcd" +
      "ef01101112131415161718191a1b1c1d1e1f2021222324252627",
  ),
  tcpSackUnknown: hex(
    "0200000000020200000000010800450000490007400040064e6cc0000201c63364070050c350fffffff000000010c0180200c49a000001010512000003" +
      "e8000007d000000bb800000fa0fe06f989aabb00006461746121",
  ),
  icmpUnreachQuote: hex(
    "02000000000202000000000108004500003800050000400166b60a0000090a0000020303112d0000000045000028006300000111a5580a0000020a00" +
      "0009829a829b0014e685",
  ),
  udpZeroChecksum: hex("02000000000202000000000108004500001f12344000401112960a0101010a01010200070009000b0000616263"),
  udpBadChecksum: hex("02000000000202000000000108004500001f12344000401112960a0101010a01010200070009000b259e616263"),
  ipv4BadHeaderChecksum: hex(
    "02000000000202000000000108004500002012344000400113a40a0101010a0101020800192d0001000170696e67",
  ),
  geneveIpv4Option: hex(
    "020000000002020000000001080045000050123440004011a515c0a80101c0a80102c00017c1003c67c20200080012345600010285011122334445" +
      "000024123440004001d081ac100001ac10000208006660000700036162636465666768",
  ),
  vxlanInnerIcmpv6: hex(
    "02000000000202000000000108004500006512340000401154520a0000010a000002c35012b50051000008000000abcdef0002000000000b0200000000" +
      "0a86dd60000000000b3a40fd000000000000000000000000000001fd000000000000000000000000000002800092f80042000178797a",
  ),
  /** Link type 113. */
  sll: hex("00040001000602000000000c0000080045000026123440004001149d0a0200010a0200020000faea0005000630313233343536373839"),
  /** Link type 276. */
  sll2: hex(
    "86dd0000000000070001020602000000000d000060000000000d1101fe800000000000000000000000000001ff02000000000000000000000001000202" +
      "220223000d002f6468637036",
  ),
  /** Link type 101. */
  rawIpv4: hex("4500002812344000400614940a0300010a030002000100020000000500000006501100649b590000"),
} as const;

/** tshark 4.0.17's decode of each crafted frame (tshark-oracle.py fields, timestamps dropped). */
export const CRAFTED_ORACLE: Record<keyof typeof CRAFTED, OracleFrame> = {
  qinqIpv4OptUdp: {"frame.cap_len": ["59"], "frame.len": ["59"], "frame.protocols": ["eth:ethertype:ieee8021ad:ethertype:vlan:ethertype:ip:udp:dns"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x88a8"], "vlan.id": ["200"], "vlan.etype": ["0x0800"], "ip.src": ["10.0.0.1"], "ip.dst": ["10.0.0.2"], "ip.proto": ["17"], "ip.ttl": ["64"], "ip.len": ["37"], "ip.id": ["0x1234"], "ip.flags.df": ["1"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["1"], "udp.srcport": ["1234"], "udp.dstport": ["53"], "udp.length": ["13"], "udp.checksum.status": ["1"]},
  ipv6ExtAhTcp: {"frame.cap_len": ["142"], "frame.len": ["142"], "frame.protocols": ["eth:ethertype:ipv6:ipv6.hopopts:ipv6.routing:ipv6.dstopts:ah:tcp"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x86dd"], "ipv6.src": ["2001:db8::1"], "ipv6.dst": ["2001:db8:0:1::2"], "ipv6.nxt": ["0"], "ipv6.hlim": ["64"], "ipv6.plen": ["88"], "tcp.srcport": ["40000"], "tcp.dstport": ["443"], "tcp.seq_raw": ["287454020"], "tcp.ack_raw": ["0"], "tcp.flags": ["0x0002"], "tcp.window_size_value": ["64240"], "tcp.checksum.status": ["1"]},
  ipv6FragFirst: {"frame.cap_len": ["86"], "frame.len": ["86"], "frame.protocols": ["eth:ethertype:ipv6:ipv6.fraghdr:data"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x86dd"], "ipv6.src": ["2001:db8::1"], "ipv6.dst": ["2001:db8:0:1::2"], "ipv6.nxt": ["44"], "ipv6.hlim": ["64"], "ipv6.plen": ["32"]},
  ipv6FragSecond: {"frame.cap_len": ["86"], "frame.len": ["86"], "frame.protocols": ["eth:ethertype:ipv6:ipv6.fraghdr:udp:data"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x86dd"], "ipv6.src": ["2001:db8::1"], "ipv6.dst": ["2001:db8:0:1::2"], "ipv6.nxt": ["44"], "ipv6.hlim": ["64"], "ipv6.plen": ["32"], "udp.srcport": ["5000"], "udp.dstport": ["6000"], "udp.length": ["48"], "udp.checksum.status": ["1"]},
  tcpSackUnknown: {"frame.cap_len": ["87"], "frame.len": ["87"], "frame.protocols": ["eth:ethertype:ip:tcp"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x0800"], "ip.src": ["192.0.2.1"], "ip.dst": ["198.51.100.7"], "ip.proto": ["6"], "ip.ttl": ["64"], "ip.len": ["73"], "ip.id": ["0x0007"], "ip.flags.df": ["1"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["1"], "tcp.srcport": ["80"], "tcp.dstport": ["50000"], "tcp.seq_raw": ["4294967280"], "tcp.ack_raw": ["16"], "tcp.flags": ["0x0018"], "tcp.window_size_value": ["512"], "tcp.checksum.status": ["1"]},
  icmpUnreachQuote: {"frame.cap_len": ["70"], "frame.len": ["70"], "frame.protocols": ["eth:ethertype:ip:icmp:ip:udp"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x0800"], "ip.src": ["10.0.0.9", "10.0.0.2"], "ip.dst": ["10.0.0.2", "10.0.0.9"], "ip.proto": ["1", "17"], "ip.ttl": ["64", "1"], "ip.len": ["56", "40"], "ip.id": ["0x0005", "0x0063"], "ip.flags.df": ["0", "0"], "ip.flags.mf": ["0", "0"], "ip.frag_offset": ["0", "0"], "ip.checksum.status": ["1", "1"], "icmp.type": ["3"], "icmp.code": ["3"], "udp.srcport": ["33434"], "udp.dstport": ["33435"], "udp.length": ["20"], "udp.checksum.status": ["2"]},
  udpZeroChecksum: {"frame.cap_len": ["45"], "frame.len": ["45"], "frame.protocols": ["eth:ethertype:ip:udp:echo"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x0800"], "ip.src": ["10.1.1.1"], "ip.dst": ["10.1.1.2"], "ip.proto": ["17"], "ip.ttl": ["64"], "ip.len": ["31"], "ip.id": ["0x1234"], "ip.flags.df": ["1"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["1"], "udp.srcport": ["7"], "udp.dstport": ["9"], "udp.length": ["11"], "udp.checksum.status": ["3"]},
  udpBadChecksum: {"frame.cap_len": ["45"], "frame.len": ["45"], "frame.protocols": ["eth:ethertype:ip:udp:echo"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x0800"], "ip.src": ["10.1.1.1"], "ip.dst": ["10.1.1.2"], "ip.proto": ["17"], "ip.ttl": ["64"], "ip.len": ["31"], "ip.id": ["0x1234"], "ip.flags.df": ["1"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["1"], "udp.srcport": ["7"], "udp.dstport": ["9"], "udp.length": ["11"], "udp.checksum.status": ["0"]},
  ipv4BadHeaderChecksum: {"frame.cap_len": ["46"], "frame.len": ["46"], "frame.protocols": ["eth:ethertype:ip:icmp:data"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x0800"], "ip.src": ["10.1.1.1"], "ip.dst": ["10.1.1.2"], "ip.proto": ["1"], "ip.ttl": ["64"], "ip.len": ["32"], "ip.id": ["0x1234"], "ip.flags.df": ["1"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["0"], "icmp.type": ["8"], "icmp.code": ["0"]},
  geneveIpv4Option: {"frame.cap_len": ["94"], "frame.len": ["94"], "frame.protocols": ["eth:ethertype:ip:udp:geneve:ip:icmp:data"], "eth.src": ["02:00:00:00:00:01"], "eth.dst": ["02:00:00:00:00:02"], "eth.type": ["0x0800"], "ip.src": ["192.168.1.1", "172.16.0.1"], "ip.dst": ["192.168.1.2", "172.16.0.2"], "ip.proto": ["17", "1"], "ip.ttl": ["64", "64"], "ip.len": ["80", "36"], "ip.id": ["0x1234", "0x1234"], "ip.flags.df": ["1", "1"], "ip.flags.mf": ["0", "0"], "ip.frag_offset": ["0", "0"], "ip.checksum.status": ["1", "1"], "icmp.type": ["8"], "icmp.code": ["0"], "udp.srcport": ["49152"], "udp.dstport": ["6081"], "udp.length": ["60"], "udp.checksum.status": ["1"], "geneve.vni": ["0x123456"]},
  vxlanInnerIcmpv6: {"frame.cap_len": ["115"], "frame.len": ["115"], "frame.protocols": ["eth:ethertype:ip:udp:vxlan:eth:ethertype:ipv6:icmpv6:data"], "eth.src": ["02:00:00:00:00:01", "02:00:00:00:00:0a"], "eth.dst": ["02:00:00:00:00:02", "02:00:00:00:00:0b"], "eth.type": ["0x0800", "0x86dd"], "ip.src": ["10.0.0.1"], "ip.dst": ["10.0.0.2"], "ip.proto": ["17"], "ip.ttl": ["64"], "ip.len": ["101"], "ip.id": ["0x1234"], "ip.flags.df": ["0"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["1"], "ipv6.src": ["fd00::1"], "ipv6.dst": ["fd00::2"], "ipv6.nxt": ["58"], "ipv6.hlim": ["64"], "ipv6.plen": ["11"], "icmpv6.type": ["128"], "icmpv6.code": ["0"], "udp.srcport": ["50000"], "udp.dstport": ["4789"], "udp.length": ["81"], "udp.checksum.status": ["3"], "vxlan.vni": ["11259375"]},
  sll: {"frame.cap_len": ["54"], "frame.len": ["54"], "frame.protocols": ["sll:ethertype:ip:icmp:data"], "ip.src": ["10.2.0.1"], "ip.dst": ["10.2.0.2"], "ip.proto": ["1"], "ip.ttl": ["64"], "ip.len": ["38"], "ip.id": ["0x1234"], "ip.flags.df": ["1"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["1"], "icmp.type": ["0"], "icmp.code": ["0"]},
  sll2: {"frame.cap_len": ["73"], "frame.len": ["73"], "frame.protocols": ["sll:ethertype:ipv6:udp:dhcpv6"], "ipv6.src": ["fe80::1"], "ipv6.dst": ["ff02::1:2"], "ipv6.nxt": ["17"], "ipv6.hlim": ["1"], "ipv6.plen": ["13"], "udp.srcport": ["546"], "udp.dstport": ["547"], "udp.length": ["13"], "udp.checksum.status": ["1"]},
  rawIpv4: {"frame.cap_len": ["40"], "frame.len": ["40"], "frame.protocols": ["raw:ip:tcp"], "ip.src": ["10.3.0.1"], "ip.dst": ["10.3.0.2"], "ip.proto": ["6"], "ip.ttl": ["64"], "ip.len": ["40"], "ip.id": ["0x1234"], "ip.flags.df": ["1"], "ip.flags.mf": ["0"], "ip.frag_offset": ["0"], "ip.checksum.status": ["1"], "tcp.srcport": ["1"], "tcp.dstport": ["2"], "tcp.seq_raw": ["5"], "tcp.ack_raw": ["6"], "tcp.flags": ["0x0011"], "tcp.window_size_value": ["100"], "tcp.checksum.status": ["1"]},
};
