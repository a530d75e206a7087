// MAC addresses the way the kernel makes them for new virtual devices (eth_random_addr: random bytes,
// multicast bit cleared, locally administered bit set), drawn from the cluster's seeded RNG.
import type { SeededRng } from "../../util/rng.js";

export function randomMac(rng: SeededRng): number {
  const hi = rng.nextU32() & 0xffff;
  const lo = rng.nextU32() >>> 0;
  const first = ((hi >>> 8) & 0xfe) | 0x02;
  return (first * 2 ** 40 + (hi & 0xff) * 2 ** 32 + lo);
}

/** Calico's host-side veth MAC (felix sets every cali* interface to it). */
export const CALICO_HOST_MAC = 0xeeeeeeeeeeee;
