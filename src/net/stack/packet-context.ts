// How a packet reached the stack and what the input route said about it, passed along the input path
// as plain numbers (no per-packet objects): the kernel's skb->pkt_type and the rtable flags icmp_send reads.

/** skb->pkt_type as eth_type_trans classifies the destination MAC (PACKET_* numbering). */
export const PacketType = { HOST: 0, BROADCAST: 1, MULTICAST: 2, OTHERHOST: 3 } as const;

/** Route facts for the packet (RTCF_LOCAL, RTCF_BROADCAST, RTCF_MULTICAST, rt_is_input_route). */
export const RouteFlag = { LOCAL: 1, BROADCAST: 2, MULTICAST: 4, INPUT: 8 } as const;
