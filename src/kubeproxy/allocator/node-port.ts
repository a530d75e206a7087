// NodePort allocation from the service-node-port-range (portallocator on a bitmap): ports
// base..base+size-1, a lower band of min(max(16, size/32), 128) ports kept for requested values,
// dynamic picks random in the rest.
import { err, ok, type Result } from "../../util/result.js";
import type { SeededRng } from "../../util/rng.js";
import { OffsetBitmap, rangeOffset } from "./offset-bitmap.js";

export const PortAllocError = {
  ALLOCATED: "provided port is already allocated",
  FULL: "range is full",
} as const;

export class NodePortAllocator {
  readonly rangeText: string;
  private readonly map: OffsetBitmap;

  constructor(
    readonly min: number,
    readonly max: number,
    rng: SeededRng,
  ) {
    const size = max - min + 1;
    this.rangeText = `${min}-${max}`;
    this.map = new OffsetBitmap(size, rangeOffset(size, 16, 128, 32), rng);
  }

  get staticBand(): number {
    return this.map.offset;
  }

  get used(): number {
    return this.map.count;
  }

  allocate(port: number): Result<number, string> {
    if (!Number.isInteger(port) || port < this.min || port > this.max) {
      return err(`provided port is not in the valid range. The range of valid ports is ${this.rangeText}`);
    }
    return this.map.allocate(port - this.min) ? ok(port) : err(PortAllocError.ALLOCATED);
  }

  allocateNext(): Result<number, string> {
    const i = this.map.allocateNext();
    return i < 0 ? err(PortAllocError.FULL) : ok(this.min + i);
  }

  release(port: number): void {
    if (Number.isInteger(port) && port >= this.min && port <= this.max) this.map.release(port - this.min);
  }

  has(port: number): boolean {
    return Number.isInteger(port) && port >= this.min && port <= this.max && this.map.has(port - this.min);
  }
}
