import { test } from "node:test";
import assert from "node:assert/strict";
import {
  FIRST_USER_IDENTITY,
  ReservedIdentity,
  cidrIdentity,
  describeIdentity,
  isCidrIdentity,
  isReservedIdentity,
  isWorldIdentity,
} from "../../datapath/identity.js";

test("reserved identities carry Cilium's numbers", () => {
  // Oracle: cilium pkg/identity/numericidentity.go (iota order) and bpf/lib/identity.h (WORLD_IPV4/IPV6 = 9/10).
  assert.deepEqual(
    { ...ReservedIdentity },
    { UNKNOWN: 0, HOST: 1, WORLD: 2, UNMANAGED: 3, HEALTH: 4, INIT: 5, REMOTE_NODE: 6, KUBE_APISERVER: 7, INGRESS: 8, WORLD_IPV4: 9, WORLD_IPV6: 10 },
  );
  assert.equal(FIRST_USER_IDENTITY, 256);
});

test("CIDR identities have bit 24 set (local scope)", () => {
  assert.equal(cidrIdentity(1), 0x1000001);
  assert.equal(cidrIdentity(0), null);
  assert.equal(cidrIdentity(0x1000000), null);
  assert.ok(isCidrIdentity(0x1000001));
  assert.ok(!isCidrIdentity(256));
  assert.ok(isReservedIdentity(ReservedIdentity.REMOTE_NODE));
  assert.ok(!isReservedIdentity(11));
  assert.ok(!isReservedIdentity(300));
  assert.ok(isWorldIdentity(9) && isWorldIdentity(2) && !isWorldIdentity(1));
  assert.equal(describeIdentity(6), "reserved:remote-node");
  assert.equal(describeIdentity(0x1000005), "cidr:5");
  assert.equal(describeIdentity(300), "300");
  assert.equal(describeIdentity(0), "unknown");
});
