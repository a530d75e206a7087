// The work one side of a test costs, read from the model's counters the way `top` reads them
// (collectNamespace) and then charged where the kernel and the NIC really spend it on a throughput
// run: the NIC driver handles every wire frame (GRO merges them afterwards), checksums are offloaded,
// and UDP payloads are copied by sendmsg / recvmsg like TCP's.
import { collectNamespace, STEP, type Work } from "../metrics/index.js";
import { DeviceKind } from "../net/device.js";
import type { NetNamespace } from "../net/stack/index.js";
import { TcpStack } from "../net/tcp/index.js";
import { udpPayloadBytes } from "../net/udp-socket.js";

/**
 * Adds the work of `namespaces` to `w` (which must start empty: the checksum correction applies to
 * everything collected).
 * - `nicRx` is charged per wire frame, not per GRO-merged skb: the driver's descriptor, buffer and
 *   napi_gro_receive work runs once per frame before GRO merges them.
 * - With `offload` (ethtool's defaults on a NIC such as i40e) nothing is checksummed in software: the
 *   NIC verifies TCP checksums on receive (CHECKSUM_UNNECESSARY) and fills them in on transmit
 *   (CHECKSUM_PARTIAL survives veth and forwarding), and a VXLAN outer UDP checksum is derived from
 *   the inner pseudo-header by local checksum offload without reading the payload (kernel
 *   Documentation/networking/checksum-offloads.rst, "LCO").
 * - UDP payload bytes sent and received through sockets are charged as `copy` (sendto / recvfrom).
 */
export function collectSide(namespaces: readonly NetNamespace[], w: Work, offload: boolean): void {
  for (const ns of namespaces) {
    collectNamespace(ns, w, TcpStack.of(ns).counters);
    const udp = udpPayloadBytes(ns);
    w.add(STEP.copy, 0, udp.sent + udp.received);
    for (const dev of ns.devicesInOrder()) {
      if (dev.kind === DeviceKind.ETHERNET) w.add(STEP.nicRx, dev.stats.rxGroSegments - dev.stats.rxGroPackets);
    }
  }
  if (offload) w.add(STEP.checksum, 0, -w.bytes("checksum"));
}
