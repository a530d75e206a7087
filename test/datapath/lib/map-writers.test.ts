// The control-plane side of the datapath's own maps: service frontends grow and shrink their backend slots,
// deletion leaves no slot or affinity pair behind, bad input is MapError.INVALID; endpoints and the tunnel
// map (longest prefix wins).
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { MapError } from "../../../datapath/maps/errors.js";
import { EndpointMap } from "../../../datapath/maps/endpoint.js";
import { LbMaps, SVC_VALUE_WORDS, SvcValue } from "../../../datapath/maps/lb.js";
import { PolicyMap } from "../../../datapath/maps/policy.js";
import { TunnelMap } from "../../../datapath/maps/tunnel.js";
import { ip } from "../programs/fixtures.js";

const VIP = ip("10.96.0.10");

describe("LbMaps", () => {
  it("writes one slot per backend, shrinks and grows them, and keeps affinity pairs in step", () => {
    const lb = new LbMaps(64);
    assert.equal(lb.upsertService({ vip: VIP, port: 80, proto: 6, revNatIndex: 3, flags: 0, backendIds: [11, 12, 13] }), 0);
    assert.equal(lb.services.size, 4);
    const master = lb.lookupService(VIP, 80, 6);
    assert.equal(lb.services.values[master * SVC_VALUE_WORDS + SvcValue.COUNT], 3);
    assert.equal(lb.services.values[lb.lookupSlot(VIP, 80, 6, 2) * SVC_VALUE_WORDS + SvcValue.BACKEND_ID], 12);
    assert.ok(lb.backendServes(3, 13));
    assert.equal(lb.upsertService({ vip: VIP, port: 80, proto: 6, revNatIndex: 3, flags: 0, backendIds: [12] }), 0);
    assert.equal(lb.services.size, 2);
    assert.equal(lb.lookupSlot(VIP, 80, 6, 2), -1);
    assert.deepEqual([lb.backendServes(3, 11), lb.backendServes(3, 12), lb.backendServes(3, 13)], [false, true, false]);
    // A second frontend of the same service (a NodePort) sharing rev-NAT index 3 keeps backend 12 listed.
    assert.equal(lb.upsertService({ vip: 0, port: 30080, proto: 6, revNatIndex: 3, flags: 1, backendIds: [12] }), 0);
    assert.ok(lb.deleteService(VIP, 80, 6));
    assert.ok(lb.backendServes(3, 12));
    assert.ok(lb.deleteService(0, 30080, 6));
    assert.equal(lb.backendServes(3, 12), false);
    assert.equal(lb.services.size, 0);
    assert.equal(lb.deleteService(VIP, 80, 6), false);
  });

  it("rejects bad fields and refuses to overflow", () => {
    const lb = new LbMaps(3);
    assert.equal(lb.upsertService({ vip: VIP, port: 0, proto: 6, revNatIndex: 1, flags: 0, backendIds: [] }), MapError.INVALID);
    assert.equal(lb.upsertService({ vip: VIP, port: 80, proto: 1, revNatIndex: 1, flags: 0, backendIds: [] }), MapError.INVALID);
    assert.equal(lb.upsertService({ vip: VIP, port: 80, proto: 6, revNatIndex: 0, flags: 0, backendIds: [] }), MapError.INVALID);
    assert.equal(lb.upsertService({ vip: VIP, port: 80, proto: 6, revNatIndex: 1, flags: 0, backendIds: [0] }), MapError.INVALID);
    assert.equal(lb.upsertBackend(1, ip("10.0.0.1"), 70000, 6), MapError.INVALID);
    assert.equal(lb.upsertService({ vip: VIP, port: 80, proto: 6, revNatIndex: 1, flags: 0, backendIds: [1, 2, 3] }), MapError.FULL);
    assert.equal(lb.services.size, 0, "nothing written");
    assert.equal(lb.upsertService({ vip: VIP, port: 80, proto: 6, revNatIndex: 1, flags: 0, backendIds: [1, 2] }), 0);
  });
});

describe("EndpointMap and TunnelMap", () => {
  it("endpoints carry their policy map until deleted", () => {
    const eps = new EndpointMap(8);
    const policy = new PolicyMap(4);
    assert.equal(eps.upsert({ ip: ip("10.224.1.10"), ifindex: 7, id: 3, identity: 1000, mac: 0x0a5800000a0a, policy }), 0);
    const slot = eps.lookup(ip("10.224.1.10"));
    assert.deepEqual([eps.ifindex(slot), eps.id(slot), eps.identity(slot), eps.mac(slot), eps.ip(slot)], [7, 3, 1000, 0x0a5800000a0a, ip("10.224.1.10")]);
    assert.equal(eps.policy(slot), policy);
    assert.ok(eps.delete(ip("10.224.1.10")));
    assert.equal(eps.lookup(ip("10.224.1.10")), -1);
    assert.equal(eps.policy(slot), null);
    assert.equal(eps.upsert({ ip: 1, ifindex: 1, id: 1, identity: 1, mac: 2 ** 48, policy: null }), MapError.INVALID);
  });

  it("the tunnel map answers the longest prefix, 0 when none covers the address", () => {
    const t = new TunnelMap(8);
    assert.equal(t.upsertV4(ip("10.224.0.0"), 16, ip("10.1.8.30")), 0);
    assert.equal(t.upsertV4(ip("10.224.2.0"), 24, ip("10.1.8.32")), 0);
    assert.equal(t.lookupV4(ip("10.224.2.9")), ip("10.1.8.32"));
    assert.equal(t.lookupV4(ip("10.224.3.9")), ip("10.1.8.30"));
    assert.equal(t.lookupV4(ip("10.225.0.1")), 0);
    assert.equal(t.upsertV4(ip("10.0.0.0"), 8, 0), MapError.INVALID);
  });
});
