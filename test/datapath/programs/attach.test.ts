// The attach layer on real veth pairs of the network model: from-container redirects into the other pod's
// veth, to-container lets it through once, the pod's namespace receives the DNAT'ed bytes, each hook leaves
// at most one hop record, and a policy drop becomes exactly one drop record with the device, hook, site,
// the tuple before/after translation and the explainer's text; the ledger balances.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Simulator } from "../../../src/engine/simulator.js";
import type { NetDevice, StackPort } from "../../../src/net/device.js";
import { VethDevice } from "../../../src/net/veth.js";
import { NetWorld } from "../../../src/net/world.js";
import { SkBuff } from "../../../src/skb/skbuff.js";
import { DeliveryKind } from "../../../src/trace/ledger.js";
import { RingSink } from "../../../src/trace/tracer.js";
import { IPPROTO_TCP } from "../../../src/wire/checksum.js";
import { attachEndpoint, type AttachOptions } from "../../../datapath/attach.js";
import type { PolicyDropRef } from "../../../datapath/ctx.js";
import { datapathConfig } from "../../../datapath/lib/config.js";
import { createDatapathMaps } from "../../../datapath/lib/maps.js";
import { Direction, PolicyMap, PolicyVerdict } from "../../../datapath/maps/policy.js";
import { DropReason, TracePoint } from "../../../datapath/reasons.js";
import { ID_A, ID_B, MAC_A, MAC_B, N1, POD_A, POD_B, ROUTER_MAC, SYN, VIP, assertChecksums, buildFrame } from "./fixtures.js";

/** A namespace double: keeps its devices for redirects and records (and delivers) what reaches it. */
class Namespace implements StackPort {
  readonly received: Uint8Array[] = [];
  private readonly devices = new Map<number, NetDevice>();
  constructor(
    private readonly world: NetWorld,
    readonly name: string,
    readonly nodeName = "n1",
  ) {}
  add(dev: NetDevice): void {
    dev.stack = this;
    this.devices.set(dev.ifindex, dev);
  }
  input(_dev: NetDevice, skb: SkBuff): void {
    this.received.push(skb.bytes().slice());
    this.world.ledger.deliver(DeliveryKind.SOCKET);
  }
  deviceByIndex(ifindex: number): NetDevice | undefined {
    return this.devices.get(ifindex);
  }
}

function setup(bIngressAllowed: boolean) {
  const world = new NetWorld(new Simulator({ seed: 7 }));
  const sink = new RingSink();
  world.tracer.addSink(sink);
  const host = new Namespace(world, "host");
  const podA = new Namespace(world, "pod-a");
  const podB = new Namespace(world, "pod-b");
  const [aPod, aHost] = VethDevice.pair(world, "eth0", MAC_A, "lxca", 0x02aaaaaaaaaa);
  const [bPod, bHost] = VethDevice.pair(world, "eth0", MAC_B, "lxcb", 0x02bbbbbbbbbb);
  podA.add(aPod);
  podB.add(bPod);
  host.add(aHost);
  host.add(bHost);

  const maps = createDatapathMaps({ ct: 256, snat: 256 });
  const polA = new PolicyMap(64);
  const polB = new PolicyMap(64);
  polA.upsert(Direction.EGRESS, 0, 0, 0, 65535, PolicyVerdict.ALLOW, 1);
  if (bIngressAllowed) polB.upsert(Direction.INGRESS, ID_A, IPPROTO_TCP, 8080, 8080, PolicyVerdict.ALLOW, 5);
  maps.endpoints.upsert({ ip: POD_A, ifindex: aHost.ifindex, id: 1, identity: ID_A, mac: MAC_A, policy: polA });
  maps.endpoints.upsert({ ip: POD_B, ifindex: bHost.ifindex, id: 2, identity: ID_B, mac: MAC_B, policy: polB });
  maps.ipcache.upsertV4(POD_A, 32, ID_A, 0, 0);
  maps.ipcache.upsertV4(POD_B, 32, ID_B, 0, 0);
  maps.lb.upsertBackend(1, POD_B, 8080, IPPROTO_TCP);
  maps.lb.upsertRevNat(1, VIP, 80);
  maps.lb.upsertService({ vip: VIP, port: 80, proto: IPPROTO_TCP, revNatIndex: 1, flags: 0, backendIds: [1] });

  const explained: PolicyDropRef[] = [];
  const options: AttachOptions = {
    maps,
    config: datapathConfig({ nodeName: "n1", nodeIps: [N1], routerMac: ROUTER_MAC }),
    random: () => world.sim.rng.nextU32(),
    explain: (ref) => {
      explained.push({ ...ref });
      return `endpoint ${ref.endpointId} ${ref.direction === Direction.INGRESS ? "ingress" : "egress"}: no entry for identity ${ref.peerIdentity} port ${ref.port}`;
    },
  };
  attachEndpoint(aHost, options);
  attachEndpoint(bHost, options);
  const send = (): SkBuff => {
    const skb = SkBuff.fromBytes(world.ledger.admit(), buildFrame({ src: POD_A, dst: VIP, proto: IPPROTO_TCP, sport: 40000, dport: 80, tcpFlags: SYN }));
    aPod.transmit(skb);
    return skb;
  };
  return { world, sink, podB, send, explained };
}

describe("attach: programs on veth pairs", () => {
  it("pod A reaches pod B through the ClusterIP: B's namespace gets the DNAT'ed bytes; one hop record per hook", () => {
    const { world, sink, podB, send } = setup(true);
    const skb = send();
    assert.equal(podB.received.length, 1);
    const got = podB.received[0]!;
    assertChecksums(got, 0, got.length);
    assert.deepEqual(got, buildFrame({ src: POD_A, dst: POD_B, proto: IPPROTO_TCP, sport: 40000, dport: 8080, tcpFlags: SYN, ttl: 63, srcMac: ROUTER_MAC, dstMac: MAC_B }));
    const hops = sink.packet(skb.id).hops;
    assert.equal(hops.length, 1, "from-container traces; to-container passes the delivered packet silently");
    assert.deepEqual([hops[0]!.device, hops[0]!.hook, hops[0]!.point], ["lxca", "tc-ingress", TracePoint.TO_ENDPOINT]);
    assert.match(hops[0]!.note, /DNAT 10\.96\.0\.10:80 -> 10\.224\.1\.20:8080/);
    assert.equal(world.ledger.delivered, 1);
    assert.equal(world.ledger.inFlight, 0);
  });

  it("a policy drop is exactly one drop record with site, tuples and the explainer's text", () => {
    const { world, sink, podB, send, explained } = setup(false);
    const skb = send();
    assert.equal(podB.received.length, 0);
    const { drops, hops } = sink.packet(skb.id);
    assert.equal(drops.length, 1);
    assert.equal(hops.length, 0);
    const d = drops[0]!;
    assert.deepEqual([d.node, d.device, d.hook, d.reason, d.site], ["n1", "lxca", "tc-ingress", DropReason.POLICY_DENIED, "datapath/lib/policy:ingress"]);
    assert.deepEqual(d.before, { src: POD_A, dst: VIP, srcPort: 40000, dstPort: 80, proto: IPPROTO_TCP });
    assert.deepEqual(d.after, { src: POD_A, dst: POD_B, srcPort: 40000, dstPort: 8080, proto: IPPROTO_TCP });
    assert.equal(d.srcIdentity, ID_A);
    assert.equal(d.explanation, `endpoint 2 ingress: no entry for identity ${ID_A} port 8080`);
    assert.equal(explained.length, 1);
    assert.equal(explained[0]!.endpointIp, POD_B);
    assert.equal(world.ledger.dropped, 1);
    assert.equal(world.ledger.dropsByReason.get(133), 1);
    assert.equal(world.ledger.inFlight, 0);
  });
});
