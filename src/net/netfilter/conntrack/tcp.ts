// TCP connection tracking as nf_conntrack_proto_tcp.c does it: flag sanity (tcp_error), creation
// (tcp_new, incl. mid-stream pickup), the state table with its special cases, window tracking
// (tcp_in_window: sequence/ack bounds, window scaling, SACK) and the per-state timeouts.

import type { ParsedHeaders } from "../../../wire/headers.js";
import { l4ChecksumGood } from "../../../skb/l4-checksum.js";
import type { SkBuff } from "../../../skb/skbuff.js";
import { read32 } from "../../../wire/bytes.js";
import type { Conntrack } from "./conntrack.js";
import { CtDir as CtDirImport, F as FImport, G as GImport, Ips as IpsImport, ROW_WORDS, TD_END, TD_MAXACK, TD_MAXEND, TD_MAXWIN, TD_SCALE_FLAGS } from "./table.js";
import { TcpCt as TcpCtImport, TcpFlagBit as TcpFlagBitImport, TcpIndex as TcpIndexImport, tcpIndex, tcpNextState } from "./tcp-states.js";
import type { CtTimeouts } from "./timeouts.js";

// Imported constant objects read through module constants: V8 folds their members into the code
// (a read through an import binding checks the binding and the object's shape at every use).
const CtDir = CtDirImport;
const F = FImport;
const G = GImport;
const Ips = IpsImport;
const TcpCt = TcpCtImport;
const TcpFlagBit = TcpFlagBitImport;
const TcpIndex = TcpIndexImport;

/** Tracker results: ACCEPT, INVALID (-NF_ACCEPT: no ct for this packet), REPEAT (entry killed, look up again). */
export const CtVerdict = { DROP: 0, ACCEPT: 1, INVALID: -1, REPEAT: -2 } as const;

/** ip_ct_tcp_state.flags and last_flags bits. */
export const TcpCtFlag = {
  WINDOW_SCALE: 0x01,
  SACK_PERM: 0x02,
  CLOSE_INIT: 0x04,
  BE_LIBERAL: 0x08,
  DATA_UNACKNOWLEDGED: 0x10,
  MAXACK_SET: 0x20,
  EXP_CHALLENGE_ACK: 0x40,
  SIMULTANEOUS_OPEN: 0x80,
} as const;

const WINDOW_RESULT = { IGNORE: 0, INVALID: 1, ACCEPT: 2 } as const;
const MAXACKWINCONST = 66000;
const TCP_MAX_WSCALE = 14;
// Valid flag combinations once PSH, ECE and CWR are masked off (tcp_valid_flags).
const VALID_FLAGS = new Uint8Array(64);
for (const f of [0x02, 0x22, 0x12, 0x04, 0x14, 0x11, 0x31, 0x10, 0x30]) VALID_FLAGS[f] = 1;

const before = (a: number, b: number): boolean => ((a - b) | 0) < 0;
const after = (a: number, b: number): boolean => ((b - a) | 0) < 0;

function payloadLen(h: ParsedHeaders): number {
  return h.ipTotalLen - h.ipHeaderLen - h.tcpHeaderLen;
}

/** segment_seq_plus_len: the sequence number after this segment (SYN and FIN count one). */
function segmentEnd(h: ParsedHeaders): number {
  return (h.tcpSeq + payloadLen(h) + (h.tcpFlags & TcpFlagBit.SYN ? 1 : 0) + (h.tcpFlags & TcpFlagBit.FIN ? 1 : 0)) >>> 0;
}

function timeoutFor(t: CtTimeouts, state: number): number {
  switch (state) {
    case TcpCt.SYN_SENT:
      return t.tcpSynSent;
    case TcpCt.SYN_RECV:
      return t.tcpSynRecv;
    case TcpCt.ESTABLISHED:
      return t.tcpEstablished;
    case TcpCt.FIN_WAIT:
      return t.tcpFinWait;
    case TcpCt.CLOSE_WAIT:
      return t.tcpCloseWait;
    case TcpCt.LAST_ACK:
      return t.tcpLastAck;
    case TcpCt.TIME_WAIT:
      return t.tcpTimeWait;
    case TcpCt.CLOSE:
      return t.tcpClose;
    case TcpCt.SYN_SENT2:
      return t.tcpSynSent2;
    default:
      return t.tcpSynSent;
  }
}

/** tcp_error: true when the segment is malformed, fails its checksum (PREROUTING) or has bad flags. */
export function tcpError(skb: SkBuff, bytes: Uint8Array, h: ParsedHeaders, verifyChecksum: boolean): boolean {
  const tcpLen = h.ipTotalLen - h.ipHeaderLen;
  if (h.tcpHeaderLen < 20 || tcpLen < h.tcpHeaderLen) return true;
  if (verifyChecksum && !l4ChecksumGood(skb, bytes, h.l4Offset, tcpLen, 6, h.src4, h.dst4)) return true;
  const flags = h.tcpFlags & 0xff & ~(TcpFlagBit.ECE | TcpFlagBit.CWR | TcpFlagBit.PSH);
  return VALID_FLAGS[flags] !== 1;
}

// ---- per-direction window state helpers (u32 words at TD + 5 * dir) -----------------------

function scaleOf(u: Uint32Array, b: number): number {
  return u[b + TD_SCALE_FLAGS]! & 0xff;
}
function flagsOf(u: Uint32Array, b: number): number {
  return (u[b + TD_SCALE_FLAGS]! >>> 8) & 0xff;
}
function setScaleFlags(u: Uint32Array, b: number, scale: number, flags: number): void {
  u[b + TD_SCALE_FLAGS] = (scale & 0xff) | ((flags & 0xff) << 8);
}

/** tcp_options: window scale and SACK-permitted from a SYN's options into a direction's state. */
function parseOptions(bytes: Uint8Array, h: ParsedHeaders, u: Uint32Array, b: number): void {
  let at = h.l4Offset + 20;
  let length = h.tcpHeaderLen - 20;
  if (length <= 0) return;
  let scale = 0;
  let flags = flagsOf(u, b) & TcpCtFlag.BE_LIBERAL;
  while (length > 0) {
    const kind = bytes[at++]!;
    if (kind === 0) break;
    if (kind === 1) {
      length--;
      continue;
    }
    if (length < 2) break;
    const size = bytes[at++]!;
    if (size < 2 || size > length) break;
    if (kind === 4 && size === 2) flags |= TcpCtFlag.SACK_PERM;
    else if (kind === 3 && size === 3) {
      scale = Math.min(bytes[at]!, TCP_MAX_WSCALE);
      flags |= TcpCtFlag.WINDOW_SCALE;
    }
    at += size - 2;
    length -= size;
  }
  setScaleFlags(u, b, scale, flags);
}

const scratchDirection = new Uint32Array(5);

/** tcp_sack: the highest right edge among SACK blocks, or `ack` when there is none. */
function highestSack(bytes: Uint8Array, h: ParsedHeaders, ack: number): number {
  let at = h.l4Offset + 20;
  let length = h.tcpHeaderLen - 20;
  if (length <= 0) return ack;
  // Fast path: timestamp-only option block (NOP NOP TS 10).
  if (length === 12 && read32(bytes, at) === 0x0101080a) return ack;
  let sack = ack;
  while (length > 0) {
    const kind = bytes[at++]!;
    if (kind === 0) return sack;
    if (kind === 1) {
      length--;
      continue;
    }
    if (length < 2) return sack;
    const size = bytes[at++]!;
    if (size < 2 || size > length) return sack;
    if (kind === 5 && size >= 10 && (size - 2) % 8 === 0) {
      for (let k = 0; k < size - 2; k += 8) {
        const right = read32(bytes, at + k + 4);
        if (after(right, sack)) sack = right;
      }
      return sack;
    }
    at += size - 2;
    length -= size;
  }
  return sack;
}

function initSender(bytes: Uint8Array, h: ParsedHeaders, u: Uint32Array, sb: number, rb: number, end: number, dir: number): void {
  const win = h.tcpWindow;
  u[sb + TD_END] = end;
  u[sb + TD_MAXEND] = end;
  u[sb + TD_MAXWIN] = win === 0 ? 1 : win;
  parseOptions(bytes, h, u, sb);
  if (dir === CtDir.REPLY && !(flagsOf(u, sb) & TcpCtFlag.WINDOW_SCALE && flagsOf(u, rb) & TcpCtFlag.WINDOW_SCALE)) {
    setScaleFlags(u, sb, 0, flagsOf(u, sb));
    setScaleFlags(u, rb, 0, flagsOf(u, rb));
  }
}

function resetDirection(u: Uint32Array, b: number): void {
  const liberal = flagsOf(u, b) & TcpCtFlag.BE_LIBERAL;
  u[b + TD_END] = 0;
  u[b + TD_MAXEND] = 0;
  u[b + TD_MAXWIN] = 0;
  u[b + TD_MAXACK] = 0;
  setScaleFlags(u, b, 0, liberal);
}

function windowVerdict(ct: Conntrack, u: Uint32Array, sb: number, ret: number): number {
  if (flagsOf(u, sb) & TcpCtFlag.BE_LIBERAL || ct.config.tcpBeLiberal) return WINDOW_RESULT.ACCEPT;
  return ret;
}

/** tcp_in_window. */
function inWindow(ct: Conntrack, i: number, dir: number, index: number, bytes: Uint8Array, h: ParsedHeaders): number {
  const t = ct.table;
  const u = t.u32;
  const row = i * ROW_WORDS;
  const sb = row + F.TD + 5 * dir;
  const rb = row + F.TD + 5 * (1 - dir);
  const flags = h.tcpFlags;
  const isSyn = (flags & TcpFlagBit.SYN) !== 0;
  const isAck = (flags & TcpFlagBit.ACK) !== 0;
  let seq = h.tcpSeq;
  let ack = h.tcpAck;
  let sack = ack;
  const winRaw = h.tcpWindow;
  let win = winRaw;
  let end = segmentEnd(h);
  const state = u[row + F.TCP_STATE]!;

  if (flagsOf(u, rb) & TcpCtFlag.SACK_PERM) sack = highestSack(bytes, h, sack);

  if (u[sb + TD_MAXWIN] === 0) {
    if (isSyn) {
      initSender(bytes, h, u, sb, rb, end, dir);
      if (!isAck) return WINDOW_RESULT.ACCEPT;
    } else {
      u[sb + TD_END] = end;
      const swin = (win << scaleOf(u, sb)) >>> 0;
      u[sb + TD_MAXWIN] = swin === 0 ? 1 : swin;
      u[sb + TD_MAXEND] = (end + u[sb + TD_MAXWIN]!) >>> 0;
      if (u[rb + TD_MAXWIN] === 0) {
        u[rb + TD_END] = sack;
        u[rb + TD_MAXEND] = sack;
      } else if (sack === ((u[rb + TD_END]! + 1) >>> 0)) {
        u[rb + TD_END] = (u[rb + TD_END]! + 1) >>> 0;
      }
    }
  } else if (isSyn && after(end, u[sb + TD_END]!) && (state === TcpCt.SYN_SENT || state === TcpCt.SYN_RECV)) {
    initSender(bytes, h, u, sb, rb, end, dir);
    if (dir === CtDir.REPLY && !isAck) return WINDOW_RESULT.ACCEPT;
  }

  if (!isAck) {
    ack = sack = u[rb + TD_END]!;
  } else if ((flags & (TcpFlagBit.ACK | TcpFlagBit.RST)) === (TcpFlagBit.ACK | TcpFlagBit.RST) && ack === 0) {
    ack = sack = u[rb + TD_END]!;
  }

  if (flags & TcpFlagBit.RST && seq === 0 && state === TcpCt.SYN_SENT) {
    seq = end = u[sb + TD_END]!;
  }

  // The window words read once: below, the sender's and receiver's blocks are only written after
  // every read of the word written (sb !== rb), so the locals always hold the stored value.
  const sEnd = u[sb + TD_END]!;
  const sMaxend = u[sb + TD_MAXEND]!;
  const sMaxwin = u[sb + TD_MAXWIN]!;
  const rEnd = u[rb + TD_END]!;
  const rMaxwin = u[rb + TD_MAXWIN]!;
  const maxAckWindow = sMaxwin > MAXACKWINCONST ? sMaxwin : MAXACKWINCONST;
  const seqOk = before(seq, (sMaxend + 1) >>> 0);
  if (!seqOk) {
    const overshot = (end - sMaxend + 1) >>> 0;
    const ackOk = after(sack, (rEnd - maxAckWindow - 1) >>> 0);
    const inRecvWin = rMaxwin !== 0 && after(end, (sEnd - rMaxwin - 1) >>> 0);
    if (inRecvWin && ackOk && overshot <= rMaxwin && before(sack, (rEnd + 1) >>> 0)) {
      u[sb + TD_END] = end;
      setScaleFlags(u, sb, scaleOf(u, sb), flagsOf(u, sb) | TcpCtFlag.DATA_UNACKNOWLEDGED);
      return windowVerdict(ct, u, sb, WINDOW_RESULT.IGNORE);
    }
    return windowVerdict(ct, u, sb, WINDOW_RESULT.INVALID);
  }
  if (!before(sack, (rEnd + 1) >>> 0)) return windowVerdict(ct, u, sb, WINDOW_RESULT.INVALID);
  const inRecvWin = rMaxwin === 0 || after(end, (sEnd - rMaxwin - 1) >>> 0);
  if (!inRecvWin) return windowVerdict(ct, u, sb, WINDOW_RESULT.IGNORE);
  if (!after(sack, (rEnd - maxAckWindow - 1) >>> 0)) return windowVerdict(ct, u, sb, WINDOW_RESULT.IGNORE);

  const sScaleFlags = u[sb + TD_SCALE_FLAGS]!;
  const sScale = sScaleFlags & 0xff;
  const sFlagsBefore = (sScaleFlags >>> 8) & 0xff;
  let sFlags = sFlagsBefore;
  if (!isSyn) win = (win << sScale) >>> 0;

  const swin = (win + (sack - ack)) >>> 0;
  if (sMaxwin < swin) u[sb + TD_MAXWIN] = swin;
  if (after(end, sEnd)) {
    u[sb + TD_END] = end;
    sFlags |= TcpCtFlag.DATA_UNACKNOWLEDGED;
  }
  if (isAck) {
    if (!(sFlags & TcpCtFlag.MAXACK_SET)) {
      u[sb + TD_MAXACK] = ack;
      sFlags |= TcpCtFlag.MAXACK_SET;
    } else if (after(ack, u[sb + TD_MAXACK]!)) {
      u[sb + TD_MAXACK] = ack;
    }
  }
  if (sFlags !== sFlagsBefore) setScaleFlags(u, sb, sScale, sFlags);

  if (rMaxwin !== 0 && after(end, sMaxend)) u[rb + TD_MAXWIN] = (rMaxwin + (end - sMaxend)) >>> 0;
  if (after((sack + win) >>> 0, (u[rb + TD_MAXEND]! - 1) >>> 0)) {
    u[rb + TD_MAXEND] = (sack + win + (win === 0 ? 1 : 0)) >>> 0;
  }
  if (ack === rEnd) {
    const rScaleFlags = u[rb + TD_SCALE_FLAGS]!;
    if (rScaleFlags & (TcpCtFlag.DATA_UNACKNOWLEDGED << 8)) setScaleFlags(u, rb, rScaleFlags & 0xff, ((rScaleFlags >>> 8) & 0xff) & ~TcpCtFlag.DATA_UNACKNOWLEDGED);
  }

  if (index === TcpIndex.ACK) {
    if (
      u[row + F.LAST_DIR]! === dir &&
      u[row + F.LAST_SEQ]! === seq &&
      u[row + F.LAST_ACK]! === ack &&
      u[row + F.LAST_END]! === end &&
      u[row + F.LAST_WIN]! === winRaw
    ) {
      u[row + F.RETRANS] = Math.min(255, u[row + F.RETRANS]! + 1);
    } else {
      u[row + F.LAST_DIR] = dir;
      u[row + F.LAST_SEQ] = seq;
      u[row + F.LAST_ACK] = ack;
      u[row + F.LAST_END] = end;
      u[row + F.LAST_WIN] = winRaw;
      u[row + F.RETRANS] = 0;
    }
  }
  return WINDOW_RESULT.ACCEPT;
}

/** nf_tcp_handle_invalid: an out-of-window FIN/RST answering the peer's FIN/RST shortens an assured entry's life. */
function handleInvalid(ct: Conntrack, i: number, dir: number, index: number): void {
  const t = ct.table;
  const st = t.status(i);
  if (!(st & Ips.ASSURED) || st & Ips.FIXED_TIMEOUT) return;
  if (index !== TcpIndex.RST && index !== TcpIndex.FIN) return;
  const lastIndex = t.get(i, F.LAST_INDEX);
  if (t.get(i, F.LAST_DIR) !== dir && (lastIndex === TcpIndex.FIN || lastIndex === TcpIndex.RST)) {
    const expires = ct.table.getF(i, G.EXPIRES) - ct.clock.now;
    if (expires < 120e9) return;
    if (expires > ct.config.timeouts.tcpUnacknowledged * 1e9) ct.refresh(i, ct.config.timeouts.tcpUnacknowledged);
  } else {
    t.set(i, F.LAST_INDEX, index);
    t.set(i, F.LAST_DIR, dir);
  }
}

/** tcp_new: sets up tracking for the first segment of an unconfirmed entry; false = invalid new. */
function tcpNew(ct: Conntrack, i: number, bytes: Uint8Array, h: ParsedHeaders): boolean {
  const newState = tcpNextState(CtDir.ORIGINAL, tcpIndex(h.tcpFlags), TcpCt.NONE);
  if (newState >= TcpCt.IV) return false;
  const t = ct.table;
  const u = t.u32;
  const b0 = t.tdBase(i, 0);
  const b1 = t.tdBase(i, 1);
  clearTcp(ct, i);
  const win = h.tcpWindow;
  const end = segmentEnd(h);
  if (newState === TcpCt.SYN_SENT) {
    u[b0 + TD_END] = end;
    u[b0 + TD_MAXWIN] = win === 0 ? 1 : win;
    u[b0 + TD_MAXEND] = end;
    parseOptions(bytes, h, u, b0);
  } else {
    if (!ct.config.tcpLoose) return false;
    u[b0 + TD_END] = end;
    u[b0 + TD_MAXWIN] = win === 0 ? 1 : win;
    u[b0 + TD_MAXEND] = (end + u[b0 + TD_MAXWIN]!) >>> 0;
    setScaleFlags(u, b0, 0, TcpCtFlag.SACK_PERM | TcpCtFlag.BE_LIBERAL);
    setScaleFlags(u, b1, 0, TcpCtFlag.SACK_PERM | TcpCtFlag.BE_LIBERAL);
  }
  t.set(i, F.LAST_INDEX, TcpIndex.NONE);
  return true;
}

function clearTcp(ct: Conntrack, i: number): void {
  const t = ct.table;
  for (let f = F.TCP_STATE; f <= F.RETRANS; f++) t.set(i, f, 0);
}

function canEarlyDrop(state: number): boolean {
  return (
    state === TcpCt.FIN_WAIT ||
    state === TcpCt.LAST_ACK ||
    state === TcpCt.TIME_WAIT ||
    state === TcpCt.CLOSE ||
    state === TcpCt.CLOSE_WAIT
  );
}

/** nf_conntrack_tcp_packet. `verify` enables the checksum check (the kernel checks only at PREROUTING). */
export function tcpPacket(ct: Conntrack, i: number, dir: number, skb: SkBuff, bytes: Uint8Array, h: ParsedHeaders, verify: boolean): number {
  const t = ct.table;
  if (tcpError(skb, bytes, h, verify && ct.config.checksum)) return CtVerdict.INVALID;
  if (!t.confirmed(i) && !tcpNew(ct, i, bytes, h)) return CtVerdict.INVALID;

  const u = t.u32;
  const row = i * ROW_WORDS;
  let oldState = u[row + F.TCP_STATE]!;
  const index = tcpIndex(h.tcpFlags);
  let newState = tcpNextState(dir, index, oldState);
  const flags = h.tcpFlags;
  let checkWindow = true;

  switch (newState) {
    case TcpCt.SYN_SENT:
    case TcpCt.IG: {
      if (newState === TcpCt.SYN_SENT) {
        if (oldState < TcpCt.TIME_WAIT) break;
        const closeInit = (flagsOf(u, row + F.TD + 5 * dir) | flagsOf(u, row + F.TD + 5 * (1 - dir))) & TcpCtFlag.CLOSE_INIT;
        if (closeInit || (u[row + F.LAST_DIR]! === dir && u[row + F.LAST_INDEX]! === TcpIndex.RST)) {
          ct.kill(i);
          return CtVerdict.REPEAT;
        }
      }
      const lastDir = u[row + F.LAST_DIR]!;
      if (index === TcpIndex.SYNACK && u[row + F.LAST_INDEX]! === TcpIndex.SYN && lastDir !== dir && h.tcpAck === u[row + F.LAST_END]!) {
        oldState = TcpCt.SYN_SENT;
        newState = TcpCt.SYN_RECV;
        const lb = row + F.TD + 5 * lastDir;
        const lastEnd = u[row + F.LAST_END]!;
        const lastWin = u[row + F.LAST_WIN]!;
        u[lb + TD_END] = lastEnd;
        u[lb + TD_MAXEND] = lastEnd;
        u[lb + TD_MAXWIN] = lastWin === 0 ? 1 : lastWin;
        const lastFlags = u[row + F.LAST_FLAGS]! & ~TcpCtFlag.EXP_CHALLENGE_ACK;
        u[row + F.LAST_FLAGS] = lastFlags;
        setScaleFlags(u, lb, u[row + F.LAST_WSCALE]!, lastFlags);
        resetDirection(u, row + F.TD + 5 * dir);
        break;
      }
      u[row + F.LAST_INDEX] = index;
      u[row + F.LAST_DIR] = dir;
      u[row + F.LAST_SEQ] = h.tcpSeq;
      u[row + F.LAST_END] = segmentEnd(h);
      u[row + F.LAST_WIN] = h.tcpWindow;
      if (index === TcpIndex.SYN && dir === CtDir.ORIGINAL) {
        scratchDirection.fill(0);
        parseOptions(bytes, h, scratchDirection, 0);
        const seenFlags = flagsOf(scratchDirection, 0);
        let lastFlags = 0;
        let lastWscale = 0;
        if (seenFlags & TcpCtFlag.WINDOW_SCALE) {
          lastFlags |= TcpCtFlag.WINDOW_SCALE;
          lastWscale = scaleOf(scratchDirection, 0);
        }
        if (seenFlags & TcpCtFlag.SACK_PERM) lastFlags |= TcpCtFlag.SACK_PERM;
        if (oldState === TcpCt.LAST_ACK) lastFlags |= TcpCtFlag.EXP_CHALLENGE_ACK;
        u[row + F.LAST_FLAGS] = lastFlags;
        u[row + F.LAST_WSCALE] = lastWscale;
      }
      if (oldState === TcpCt.SYN_SENT && index === TcpIndex.ACK && dir === CtDir.REPLY) u[row + F.LAST_ACK] = h.tcpAck;
      return CtVerdict.ACCEPT;
    }
    case TcpCt.IV:
      return CtVerdict.INVALID;
    case TcpCt.TIME_WAIT:
      if (
        oldState === TcpCt.LAST_ACK &&
        index === TcpIndex.ACK &&
        u[row + F.LAST_DIR]! !== dir &&
        u[row + F.LAST_INDEX]! === TcpIndex.SYN &&
        u[row + F.LAST_FLAGS]! & TcpCtFlag.EXP_CHALLENGE_ACK
      ) {
        u[row + F.LAST_FLAGS] = u[row + F.LAST_FLAGS]! & ~TcpCtFlag.EXP_CHALLENGE_ACK;
        return CtVerdict.ACCEPT;
      }
      break;
    case TcpCt.SYN_SENT2:
      u[row + F.LAST_FLAGS] = u[row + F.LAST_FLAGS]! | TcpCtFlag.SIMULTANEOUS_OPEN;
      break;
    case TcpCt.SYN_RECV:
      if (dir === CtDir.REPLY && index === TcpIndex.ACK && u[row + F.LAST_FLAGS]! & TcpCtFlag.SIMULTANEOUS_OPEN) {
        newState = TcpCt.ESTABLISHED;
      }
      break;
    case TcpCt.CLOSE: {
      if (index !== TcpIndex.RST) break;
      if (canEarlyDrop(oldState)) {
        checkWindow = false;
        break;
      }
      const ob = row + F.TD + 5 * (1 - dir);
      const established = oldState === TcpCt.ESTABLISHED && (u[row + F.STATUS]! & Ips.ASSURED) !== 0;
      if (flagsOf(u, ob) & TcpCtFlag.MAXACK_SET && u[row + F.LAST_INDEX]! !== TcpIndex.SYN) {
        const seq = h.tcpSeq;
        const maxAck = u[ob + TD_MAXACK]!;
        if (seq === 0 && !established) break;
        if (before(seq, maxAck) && !ct.config.tcpIgnoreInvalidRst) return CtVerdict.INVALID;
        if (!established || seq === maxAck) break;
        if (u[row + F.LAST_INDEX]! === TcpIndex.ACK && u[row + F.LAST_DIR]! === dir && seq === u[row + F.LAST_END]!) break;
        newState = oldState;
      }
      const st = u[row + F.STATUS]!;
      const lastIndex = u[row + F.LAST_INDEX]!;
      if (
        ((st & Ips.SEEN_REPLY && lastIndex === TcpIndex.SYN) || (!(st & Ips.ASSURED) && lastIndex === TcpIndex.ACK)) &&
        h.tcpAck === u[row + F.LAST_END]!
      ) {
        checkWindow = false;
        break;
      }
      if (oldState === TcpCt.SYN_SENT && lastIndex === TcpIndex.ACK && u[row + F.LAST_DIR]! === CtDir.REPLY && h.tcpSeq === u[row + F.LAST_ACK]!) {
        checkWindow = false;
      }
      break;
    }
    default:
      break;
  }

  if (checkWindow) {
    const res = inWindow(ct, i, dir, index, bytes, h);
    if (res === WINDOW_RESULT.IGNORE) return CtVerdict.ACCEPT;
    if (res === WINDOW_RESULT.INVALID) {
      handleInvalid(ct, i, dir, index);
      return CtVerdict.INVALID;
    }
  }

  u[row + F.LAST_INDEX] = index;
  u[row + F.LAST_DIR] = dir;
  u[row + F.TCP_STATE] = newState;
  if (oldState !== newState && newState === TcpCt.FIN_WAIT) {
    const b = row + F.TD + 5 * dir;
    setScaleFlags(u, b, scaleOf(u, b), flagsOf(u, b) | TcpCtFlag.CLOSE_INIT);
  }

  const to = ct.config.timeouts;
  const stateTimeout = timeoutFor(to, newState);
  let timeout: number;
  if (u[row + F.RETRANS]! >= ct.config.tcpMaxRetransCount && stateTimeout > to.tcpMaxRetrans) timeout = to.tcpMaxRetrans;
  else if (index === TcpIndex.RST) timeout = to.tcpClose;
  else if ((flagsOf(u, row + F.TD) | flagsOf(u, row + F.TD + 5)) & TcpCtFlag.DATA_UNACKNOWLEDGED && stateTimeout > to.tcpUnacknowledged) {
    timeout = to.tcpUnacknowledged;
  } else if (u[row + F.LAST_WIN]! === 0 && stateTimeout > to.tcpMaxRetrans) timeout = to.tcpMaxRetrans;
  else timeout = stateTimeout;

  const status = u[row + F.STATUS]!;
  if (!(status & Ips.SEEN_REPLY)) {
    if (flags & TcpFlagBit.RST) {
      ct.kill(i);
      return CtVerdict.ACCEPT;
    }
    if (index === TcpIndex.SYN && oldState === TcpCt.SYN_SENT) return CtVerdict.ACCEPT;
    if (newState === TcpCt.ESTABLISHED && timeout > to.tcpUnacknowledged) timeout = to.tcpUnacknowledged;
  } else if (!(status & Ips.ASSURED) && (oldState === TcpCt.SYN_RECV || oldState === TcpCt.ESTABLISHED) && newState === TcpCt.ESTABLISHED) {
    t.setStatus(i, Ips.ASSURED);
  }
  ct.refresh(i, timeout);
  return CtVerdict.ACCEPT;
}

/** nf_conntrack_tcp_set_closing: REJECT with a TCP reset moves a confirmed entry to CLOSE (10 s). */
export function tcpSetClosing(ct: Conntrack, i: number): void {
  const t = ct.table;
  if (!t.confirmed(i)) return;
  const old = t.get(i, F.TCP_STATE);
  t.set(i, F.TCP_STATE, TcpCt.CLOSE);
  if (old === TcpCt.CLOSE || t.status(i) & Ips.FIXED_TIMEOUT) return;
  ct.refresh(i, ct.config.timeouts.tcpClose);
}

/** TCP state of an entry (TcpCt value). */
export function tcpState(ct: Conntrack, i: number): number {
  return ct.table.get(i, F.TCP_STATE);
}
