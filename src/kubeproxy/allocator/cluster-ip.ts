// ClusterIP allocation from the service CIDR (ipallocator.Range on a bitmap): the network and
// broadcast addresses are never handed out, the first min(max(16, size/16), 256) addresses form the
// band for explicitly requested IPs, and dynamic picks are random in the rest.
import { err, ok, type Result } from "../../util/result.js";
import type { SeededRng } from "../../util/rng.js";
import { formatIPv4 } from "../../util/ip.js";
import { formatCidr, parseCidrSloppy, parseIPv4Sloppy, type Cidr } from "../ip-text.js";
import { OffsetBitmap, rangeOffset } from "./offset-bitmap.js";

/** ipallocator's error texts. */
export const IpAllocError = {
  ALLOCATED: "provided IP is already allocated",
  FULL: "range is full",
} as const;

export class ClusterIpAllocator {
  readonly cidr: Cidr;
  readonly cidrText: string;
  private readonly base: number;
  private readonly map: OffsetBitmap;

  private constructor(cidr: Cidr, rng: SeededRng) {
    this.cidr = cidr;
    this.cidrText = formatCidr(cidr);
    const size = 2 ** (32 - cidr.prefixLength);
    // Skip the network address; IPv4 also never uses the broadcast address.
    this.base = cidr.address + 1;
    const max = Math.max(0, size - 2);
    this.map = new OffsetBitmap(max, rangeOffset(size, 16, 256, 16), rng);
  }

  /** An allocator for `cidr` ("10.96.0.0/12"); errors name the field. */
  static create(cidr: string, rng: SeededRng): Result<ClusterIpAllocator, string> {
    const c = parseCidrSloppy(cidr);
    if (c === null) return err(`serviceCIDR: ${JSON.stringify(cidr)} is not an IPv4 CIDR`);
    if (c.prefixLength > 30) return err(`serviceCIDR: ${JSON.stringify(cidr)} leaves no usable address`);
    return ok(new ClusterIpAllocator(c, rng));
  }

  /** Size of the band reserved for requested addresses. */
  get staticBand(): number {
    return this.map.offset;
  }

  get used(): number {
    return this.map.count;
  }

  /** Index of `ip` in the bitmap, or -1 when it is outside the usable range. */
  private indexOf(ip: number): number {
    const i = ip - this.base;
    return i >= 0 && i < this.map.max ? i : -1;
  }

  /** Reserves a requested address; the error is the allocator's message. */
  allocate(ipText: string): Result<string, string> {
    const ip = parseIPv4Sloppy(ipText);
    const i = ip === null ? -1 : this.indexOf(ip);
    if (ip === null || i < 0) return err(`the provided IP (${ipText}) is not in the valid range. The range of valid IPs is ${this.cidrText}`);
    if (!this.map.allocate(i)) return err(IpAllocError.ALLOCATED);
    return ok(formatIPv4(ip));
  }

  allocateNext(): Result<string, string> {
    const i = this.map.allocateNext();
    return i < 0 ? err(IpAllocError.FULL) : ok(formatIPv4((this.base + i) >>> 0));
  }

  release(ipText: string): void {
    const ip = parseIPv4Sloppy(ipText);
    if (ip === null) return;
    const i = this.indexOf(ip);
    if (i >= 0) this.map.release(i);
  }

  has(ipText: string): boolean {
    const ip = parseIPv4Sloppy(ipText);
    const i = ip === null ? -1 : this.indexOf(ip);
    return i >= 0 && this.map.has(i);
  }
}
