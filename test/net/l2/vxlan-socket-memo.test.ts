// The VXLAN socket's last-VNI memo: datagrams reach the device registered for their VNI now, also
// when the VNI's device left and another took the VNI, and a VNI once unknown is found after a join.

import { test } from "node:test";
import assert from "node:assert/strict";
import { VxlanSocket, type VxlanEndpoint } from "../../../src/net/vxlan/socket.js";
import type { NetNamespace } from "../../../src/net/stack/namespace.js";

const endpoint = (name: string, vni: number): VxlanEndpoint => ({ name, vni, decapsulate: () => undefined });

test("device(vni) answers from the current registrations after register / unregister", () => {
  const sock = new VxlanSocket({} as NetNamespace, 4789);
  const a = endpoint("a", 1);
  const b = endpoint("b", 1);
  const c = endpoint("c", 2);
  sock.register(a);
  assert.equal(sock.device(1), a);
  assert.equal(sock.device(1), a, "asked twice: same answer");
  sock.unregister(a);
  assert.equal(sock.device(1), undefined, "gone after unregister");
  sock.register(b);
  assert.equal(sock.device(1), b, "the new device for the VNI");
  assert.equal(sock.device(2), undefined);
  sock.register(c);
  assert.equal(sock.device(2), c, "an unknown VNI is found once registered");
  assert.equal(sock.device(1), b);
  assert.equal(sock.deviceCount, 2);
});
