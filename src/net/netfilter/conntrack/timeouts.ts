// Conntrack tunables with the kernel's defaults (net.netfilter.nf_conntrack_* sysctls; timeouts in
// seconds as the sysctls give them).

export interface CtTimeouts {
  readonly tcpSynSent: number;
  readonly tcpSynRecv: number;
  readonly tcpEstablished: number;
  readonly tcpFinWait: number;
  readonly tcpCloseWait: number;
  readonly tcpLastAck: number;
  readonly tcpTimeWait: number;
  readonly tcpClose: number;
  readonly tcpSynSent2: number;
  /** nf_conntrack_tcp_timeout_max_retrans */
  readonly tcpMaxRetrans: number;
  /** nf_conntrack_tcp_timeout_unacknowledged */
  readonly tcpUnacknowledged: number;
  /** nf_conntrack_udp_timeout (unreplied, or replied but younger than 2 s) */
  readonly udp: number;
  /** nf_conntrack_udp_timeout_stream */
  readonly udpStream: number;
  readonly icmp: number;
  /** nf_conntrack_gre_timeout / nf_conntrack_gre_timeout_stream */
  readonly gre: number;
  readonly greStream: number;
  readonly generic: number;
}

export const DEFAULT_CT_TIMEOUTS: CtTimeouts = {
  tcpSynSent: 120,
  tcpSynRecv: 60,
  tcpEstablished: 432000,
  tcpFinWait: 120,
  tcpCloseWait: 60,
  tcpLastAck: 30,
  tcpTimeWait: 120,
  tcpClose: 10,
  tcpSynSent2: 120,
  tcpMaxRetrans: 300,
  tcpUnacknowledged: 300,
  udp: 30,
  udpStream: 120,
  icmp: 30,
  gre: 30,
  greStream: 180,
  generic: 600,
};

export interface ConntrackConfig {
  /** nf_conntrack_max: the table holds at most this many entries (confirmed + unconfirmed). */
  readonly maxEntries: number;
  readonly timeouts: CtTimeouts;
  /** nf_conntrack_tcp_loose: pick up connections from a mid-stream ACK. */
  readonly tcpLoose: boolean;
  /** nf_conntrack_tcp_be_liberal: out-of-window packets are not marked INVALID. */
  readonly tcpBeLiberal: boolean;
  readonly tcpMaxRetransCount: number;
  readonly tcpIgnoreInvalidRst: boolean;
  /** nf_conntrack_checksum: verify L4 checksums at PREROUTING (bad ones are INVALID). */
  readonly checksum: boolean;
}

export const DEFAULT_CONNTRACK_CONFIG: ConntrackConfig = {
  maxEntries: 262144,
  timeouts: DEFAULT_CT_TIMEOUTS,
  tcpLoose: true,
  tcpBeLiberal: false,
  tcpMaxRetransCount: 3,
  tcpIgnoreInvalidRst: false,
  checksum: true,
};

export const NS_PER_SECOND = 1_000_000_000;
