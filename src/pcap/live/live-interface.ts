// LiveInterface: one real network interface opened with libpcap (through `cap`): frames received on
// it are handed to a callback as they arrive, and frames are sent on it with pcap_sendpacket.
// It sees the interfaces of the network namespace the process runs in.

import { readFileSync } from "node:fs";
import { err, ok, type Result } from "../../util/result.js";
import { liveError, LiveErrorKind, type LiveError } from "./errors.js";
import { loadCap, type CapHandle, type CapModule } from "./load-cap.js";

/** Largest frame captured or sent (cap's snaplen is 65535). */
export const LIVE_MAX_FRAME = 65535;

export interface LiveOpenOptions {
  /** A pcap-filter(7) expression; only matching frames are delivered. */
  readonly filter?: string;
  /**
   * Kernel capture ring in bytes (default 32 MiB). cap fixes the snapshot length at 65535, so each
   * ring slot takes 64 KiB and the default holds about 500 frames queued while the emulator is busy.
   */
  readonly bufferBytes?: number;
  /**
   * Leave out frames the host itself sends on the interface (default true: the emulator must not
   * take the namespace's own outgoing frames as input). Done with `not ether src <own MAC>`:
   * libpcap's `inbound` primitive loses the first frame after open on Linux 6.x / libpcap 1.10.
   * Frames the emulator injects are never looped back to its own capture (the kernel skips the
   * sending socket).
   */
  readonly inboundOnly?: boolean;
}

/**
 * Called for every captured frame. `data[0, length)` is the frame; the buffer is reused for the
 * next frame, so copy what you keep before returning.
 */
export type LiveFrameHandler = (data: Uint8Array, length: number, truncated: boolean) => void;

export interface LiveStats {
  received: number;
  receivedBytes: number;
  truncated: number;
  sent: number;
  sentBytes: number;
  sendErrors: number;
}

const DEFAULT_BUFFER_BYTES = 32 << 20;
/** CAP_NET_RAW's bit in /proc/self/status CapEff (linux/capability.h). */
const CAP_NET_RAW_BIT = 13n;

/**
 * Handles whose open failed half-way. cap 0.2.1's destructor stops a uv poll handle it never
 * started on those (and aborts the process), so they are kept reachable and never collected.
 */
const failedHandles: CapHandle[] = [];

export class LiveInterface {
  readonly stats: LiveStats = { received: 0, receivedBytes: 0, truncated: 0, sent: 0, sentBytes: 0, sendErrors: 0 };
  /** libpcap's message for the last failed send ("" if none failed). */
  lastSendError = "";
  private readonly rxBuffer = Buffer.alloc(LIVE_MAX_FRAME);
  private readonly txBuffer = Buffer.alloc(LIVE_MAX_FRAME);
  private handler: LiveFrameHandler | null = null;
  private open = true;

  private constructor(
    readonly name: string,
    /** The filter compiled into the capture (including the inbound restriction). */
    readonly filter: string,
    private readonly cap: CapHandle,
  ) {}

  /** Opens `name` for capture and injection; a typed error says what is missing otherwise. */
  static open(name: string, options: LiveOpenOptions = {}): Result<LiveInterface, LiveError> {
    const loaded = loadCap();
    if (!loaded.ok) return err({ ...loaded.error, iface: name });
    const lib = loaded.value;
    const known = listInterfaces(lib);
    if (known.ok && !known.value.includes(name)) {
      return err(
        liveError(
          LiveErrorKind.NO_SUCH_INTERFACE,
          name,
          "no such interface in this network namespace",
          `interfaces here: ${known.value.filter(isRealInterface).join(", ") || "none"}; run cnisim in the namespace that has it (ip netns exec NS ...)`,
        ),
      );
    }
    const ownMac = options.inboundOnly === false ? null : interfaceMac(name);
    if (!hasNetRaw()) {
      return err(classifyOpenError(name, "capturing needs CAP_NET_RAW, which this process does not have: Operation not permitted", ""));
    }
    const filter = composeFilter(options.filter ?? "", ownMac);
    const live = new LiveInterface(name, filter, new lib.Cap());
    let linkType: string;
    try {
      linkType = live.cap.open(name, filter, options.bufferBytes ?? DEFAULT_BUFFER_BYTES, live.rxBuffer);
    } catch (e) {
      failedHandles.push(live.cap);
      return err(classifyOpenError(name, e instanceof Error ? e.message : String(e), options.filter ?? ""));
    }
    if (linkType !== "ETHERNET") {
      live.cap.close();
      return err(liveError(LiveErrorKind.UNSUPPORTED_LINK, name, `link type ${linkType}, not Ethernet`, "attach an Ethernet interface (a veth, tap or NIC)"));
    }
    live.cap.on("packet", (nbytes, truncated) => live.deliver(nbytes, truncated));
    return ok(live);
  }

  /** Sets the callback for received frames (one per interface). */
  onFrame(handler: LiveFrameHandler): void {
    this.handler = handler;
  }

  /** Sends one Ethernet frame; false (counted, message in lastSendError) if libpcap refused it. */
  send(frame: Uint8Array): boolean {
    if (!this.open || frame.length > LIVE_MAX_FRAME) {
      this.stats.sendErrors++;
      this.lastSendError = this.open ? `frame of ${frame.length} bytes exceeds ${LIVE_MAX_FRAME}` : "interface closed";
      return false;
    }
    this.txBuffer.set(frame, 0);
    try {
      this.cap.send(this.txBuffer, frame.length);
    } catch (e) {
      this.stats.sendErrors++;
      this.lastSendError = e instanceof Error ? e.message : String(e);
      return false;
    }
    this.stats.sent++;
    this.stats.sentBytes += frame.length;
    return true;
  }

  /** Stops capturing; further sends fail. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.cap.close();
  }

  private deliver(nbytes: number, truncated: boolean): void {
    this.stats.received++;
    this.stats.receivedBytes += nbytes;
    if (truncated) this.stats.truncated++;
    this.handler?.(this.rxBuffer, nbytes, truncated);
  }
}

/** Interface names libpcap can open here (incl. pseudo devices such as `any`). */
export function listInterfaces(lib: CapModule): Result<string[], LiveError> {
  try {
    return ok(lib.Cap.deviceList().map((d) => d.name));
  } catch (e) {
    return err(liveError(LiveErrorKind.OPEN_FAILED, "", `cannot list interfaces: ${e instanceof Error ? e.message : String(e)}`, ""));
  }
}

const PSEUDO_INTERFACES = new Set(["any", "nflog", "nfqueue", "bluetooth-monitor", "dbus-system", "dbus-session"]);

function isRealInterface(name: string): boolean {
  return !PSEUDO_INTERFACES.has(name) && !name.startsWith("usbmon");
}

/** `not ether src OWN and (USER)`: keeps the frames the host itself sends on the interface out. */
export function composeFilter(user: string, ownMac: string | null): string {
  const trimmed = user.trim();
  if (ownMac === null) return trimmed;
  const own = `not ether src ${ownMac}`;
  return trimmed === "" ? own : `${own} and (${trimmed})`;
}

/** Whether the effective capability set has CAP_NET_RAW (true when it cannot be read: libpcap will say). */
function hasNetRaw(): boolean {
  try {
    const m = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m === null || ((BigInt(`0x${m[1]}`) >> CAP_NET_RAW_BIT) & 1n) === 1n;
  } catch {
    return true;
  }
}

/** The interface's MAC from sysfs (`ip netns exec` mounts the namespace's own /sys), or null. */
function interfaceMac(name: string): string | null {
  if (!/^[^/\s]{1,15}$/.test(name) || name === "." || name === "..") return null;
  try {
    const mac = readFileSync(`/sys/class/net/${name}/address`, "utf8").trim();
    return /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(mac) ? mac : null;
  } catch {
    return null;
  }
}

/** Maps libpcap's open/activate/compile messages to an error kind and a fix. */
export function classifyOpenError(iface: string, message: string, userFilter: string): LiveError {
  if (/permission|not permitted|EPERM/i.test(message)) {
    return liveError(LiveErrorKind.NO_PRIVILEGE, iface, message, "run as root or give node CAP_NET_RAW and CAP_NET_ADMIN (setcap cap_net_raw,cap_net_admin+eip $(command -v node))");
  }
  if (/no such device/i.test(message)) {
    return liveError(LiveErrorKind.NO_SUCH_INTERFACE, iface, message, "check the name with `ip link` in the namespace cnisim runs in");
  }
  if (/parse filter|syntax error|filter expression/i.test(message)) {
    return liveError(LiveErrorKind.BAD_FILTER, iface, `${message} in filter ${JSON.stringify(userFilter)}`, "see pcap-filter(7)");
  }
  if (/not up/i.test(message)) {
    return liveError(LiveErrorKind.OPEN_FAILED, iface, message, `bring it up: ip link set ${iface} up`);
  }
  return liveError(LiveErrorKind.OPEN_FAILED, iface, message, "");
}
