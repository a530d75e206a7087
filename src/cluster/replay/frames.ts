// Turns one capture record into the bytes an injection point takes: Ethernet frames as captured, raw IP
// and Linux cooked (SLL/SLL2) packets with an Ethernet header built for the point; for an L3 device
// (tunl0) the link header is stripped instead. Builds into one reused buffer (no allocation per packet).
import { LinkType } from "../../wire/layers.js";
import { ETHERNET_HEADER_LENGTH, EtherType, ethernetType } from "../../wire/ethernet.js";
import { SLL2_HEADER_LENGTH, SLL_HEADER_LENGTH } from "../../wire/sll.js";
import { writeMac } from "../../util/mac.js";
import { err, ok, type Result } from "../../util/result.js";

/** A frame ready to inject: bytes [0, length) of `bytes` (valid until the next call). */
export interface PreparedFrame {
  readonly bytes: Uint8Array;
  readonly length: number;
  /** EtherType of the network layer (0x0800 IPv4, 0x86dd IPv6, 0x0806 ARP, ...). */
  readonly etherType: number;
  /** Offset of the network-layer header in `bytes`. */
  readonly l3Offset: number;
}

/** The link-layer addresses a built Ethernet header carries, chosen per packet by the injection point. */
export type MacChooser = (etherType: number, l3: Uint8Array, l3Offset: number) => { readonly src: number; readonly dst: number };

const VLAN_TAG = 4;

export class FramePreparer {
  private scratch = new Uint8Array(2048);

  /**
   * `l2`: the injection device carries Ethernet frames; `macs` picks the addresses of a built header;
   * `rewriteL2`: captured Ethernet frames get a built header too (their MACs and VLAN tags replaced).
   */
  constructor(
    private readonly l2: boolean,
    private readonly macs: MacChooser,
    private readonly rewriteL2 = false,
  ) {}

  /** Converts a record's bytes of the given LINKTYPE; the error says why the packet cannot be injected. */
  prepare(linkType: number, data: Uint8Array): Result<PreparedFrame, string> {
    const l3 = networkLayer(linkType, data);
    if (!l3.ok) return l3;
    const { offset, etherType } = l3.value;
    if (!this.l2) {
      if (etherType !== EtherType.IPV4 && etherType !== EtherType.IPV6) {
        return err(`EtherType 0x${hex4(etherType)} cannot enter an L3 device (IPv4 or IPv6 only)`);
      }
      return ok({ bytes: data.subarray(offset), length: data.length - offset, etherType, l3Offset: 0 });
    }
    if (linkType === LinkType.ETHERNET && !this.rewriteL2) return ok({ bytes: data, length: data.length, etherType, l3Offset: offset });
    const payload = data.length - offset;
    const need = ETHERNET_HEADER_LENGTH + payload;
    if (this.scratch.length < need) this.scratch = new Uint8Array(Math.max(need, this.scratch.length * 2));
    const buf = this.scratch;
    const { src, dst } = this.macs(etherType, data, offset);
    writeMac(buf, 0, dst);
    writeMac(buf, 6, src);
    buf[12] = etherType >>> 8;
    buf[13] = etherType & 0xff;
    buf.set(data.subarray(offset), ETHERNET_HEADER_LENGTH);
    return ok({ bytes: buf, length: need, etherType, l3Offset: ETHERNET_HEADER_LENGTH });
  }
}

/** Where the network layer starts in a record of a link type, and its EtherType. */
function networkLayer(linkType: number, data: Uint8Array): Result<{ offset: number; etherType: number }, string> {
  switch (linkType) {
    case LinkType.ETHERNET: {
      if (data.length < ETHERNET_HEADER_LENGTH) return err(`${data.length}-byte frame is shorter than an Ethernet header`);
      let offset = ETHERNET_HEADER_LENGTH;
      let etherType = ethernetType(data, 0);
      // 802.1Q/802.1ad tags: the network layer follows the last tag.
      while (isTag(etherType) && data.length >= offset + VLAN_TAG) {
        etherType = (data[offset + 2]! << 8) | data[offset + 3]!;
        offset += VLAN_TAG;
      }
      return ok({ offset, etherType });
    }
    case LinkType.RAW:
    case LinkType.IPV4:
    case LinkType.IPV6: {
      if (data.length < 1) return err("empty raw IP packet");
      const version = data[0]! >>> 4;
      if (version === 4) return ok({ offset: 0, etherType: EtherType.IPV4 });
      if (version === 6) return ok({ offset: 0, etherType: EtherType.IPV6 });
      return err(`raw IP packet with IP version ${version}`);
    }
    case LinkType.LINUX_SLL:
    case LinkType.LINUX_SLL2: {
      const sll2 = linkType === LinkType.LINUX_SLL2;
      const len = sll2 ? SLL2_HEADER_LENGTH : SLL_HEADER_LENGTH;
      if (data.length < len) return err(`${data.length}-byte packet is shorter than the ${sll2 ? "SLL2" : "SLL"} header (${len} bytes)`);
      const protocol = sll2 ? (data[0]! << 8) | data[1]! : (data[14]! << 8) | data[15]!;
      if (protocol < 0x0600) return err(`${sll2 ? "SLL2" : "SLL"} protocol 0x${hex4(protocol)} is not an EtherType (802.2/802.3 frames are not replayed)`);
      return ok({ offset: len, etherType: protocol });
    }
    default:
      return err(`link type ${linkType} is not supported for replay (Ethernet, raw IP, SLL and SLL2 are)`);
  }
}

const isTag = (t: number): boolean => t === EtherType.VLAN || t === EtherType.QINQ || t === EtherType.VLAN_LEGACY_QINQ;
const hex4 = (n: number): string => n.toString(16).padStart(4, "0");
