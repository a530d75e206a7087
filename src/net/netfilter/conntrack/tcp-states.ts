// TCP conntrack states, the per-segment index (SYN, SYN/ACK, FIN, ACK, RST, none) and the kernel's
// state transition table (nf_conntrack_proto_tcp.c tcp_conntracks[dir][index][state]).

export const TcpCt = {
  NONE: 0,
  SYN_SENT: 1,
  SYN_RECV: 2,
  ESTABLISHED: 3,
  FIN_WAIT: 4,
  CLOSE_WAIT: 5,
  LAST_ACK: 6,
  TIME_WAIT: 7,
  CLOSE: 8,
  SYN_SENT2: 9,
  /** "invalid" marker in the table (TCP_CONNTRACK_MAX). */
  IV: 10,
  /** "ignore" marker in the table. */
  IG: 11,
} as const;

export const TCP_STATE_NAMES = [
  "NONE",
  "SYN_SENT",
  "SYN_RECV",
  "ESTABLISHED",
  "FIN_WAIT",
  "CLOSE_WAIT",
  "LAST_ACK",
  "TIME_WAIT",
  "CLOSE",
  "SYN_SENT2",
] as const;

export const TcpIndex = { SYN: 0, SYNACK: 1, FIN: 2, ACK: 3, RST: 4, NONE: 5 } as const;

export const TcpFlagBit = { FIN: 0x01, SYN: 0x02, RST: 0x04, PSH: 0x08, ACK: 0x10, URG: 0x20, ECE: 0x40, CWR: 0x80 } as const;

/** get_conntrack_index: which row of the table a segment's flags select. */
export function tcpIndex(flags: number): number {
  if (flags & TcpFlagBit.RST) return TcpIndex.RST;
  if (flags & TcpFlagBit.SYN) return flags & TcpFlagBit.ACK ? TcpIndex.SYNACK : TcpIndex.SYN;
  if (flags & TcpFlagBit.FIN) return TcpIndex.FIN;
  if (flags & TcpFlagBit.ACK) return TcpIndex.ACK;
  return TcpIndex.NONE;
}

const { NONE: sNO, SYN_SENT: sSS, SYN_RECV: sSR, ESTABLISHED: sES, FIN_WAIT: sFW, CLOSE_WAIT: sCW } = TcpCt;
const { LAST_ACK: sLA, TIME_WAIT: sTW, CLOSE: sCL, SYN_SENT2: sS2, IV: sIV, IG: sIG } = TcpCt;
void sNO;

// Rows: index SYN, SYNACK, FIN, ACK, RST, NONE; columns: states NONE..SYN_SENT2.
const ORIGINAL: readonly (readonly number[])[] = [
  [sSS, sSS, sIG, sIG, sIG, sIG, sIG, sSS, sSS, sS2],
  [sIV, sIV, sSR, sIV, sIV, sIV, sIV, sIV, sIV, sSR],
  [sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV],
  [sES, sIV, sES, sES, sCW, sCW, sTW, sTW, sCL, sIV],
  [sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL],
  [sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV],
];
const REPLY: readonly (readonly number[])[] = [
  [sIV, sS2, sIV, sIV, sIV, sIV, sIV, sSS, sIV, sS2],
  [sIV, sSR, sIG, sIG, sIG, sIG, sIG, sIG, sIG, sSR],
  [sIV, sIV, sFW, sFW, sLA, sLA, sLA, sTW, sCL, sIV],
  [sIV, sIG, sSR, sES, sCW, sCW, sTW, sTW, sCL, sIG],
  [sIV, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL, sCL],
  [sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV, sIV],
];

/** Flattened [dir][index][state] lookup. */
const TABLE = new Uint8Array(2 * 6 * 10);
for (let idx = 0; idx < 6; idx++) {
  for (let s = 0; s < 10; s++) {
    TABLE[idx * 10 + s] = ORIGINAL[idx]![s]!;
    TABLE[60 + idx * 10 + s] = REPLY[idx]![s]!;
  }
}

export function tcpNextState(dir: number, index: number, state: number): number {
  return TABLE[dir * 60 + index * 10 + state]!;
}
