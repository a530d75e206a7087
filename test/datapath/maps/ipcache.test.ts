import { test } from "node:test";
import assert from "node:assert/strict";
import { IpCache, IpCacheFlag, MapError } from "../../../datapath/maps/index.js";
import { ReservedIdentity, cidrIdentity } from "../../../datapath/identity.js";
import { parseIPv4, parseIPv6 } from "../../../src/util/ip.js";

const ip = (s: string): number => parseIPv4(s)!;

test("pod /32, node pod-CIDR with tunnel endpoint, CIDR identity and world /0: longest prefix wins", () => {
  const cache = new IpCache(64);
  const cidr = cidrIdentity(1)!;
  assert.equal(cache.upsertV4(0, 0, ReservedIdentity.WORLD, 0, 0), 0);
  assert.equal(cache.upsertV4(ip("10.244.1.0"), 24, ReservedIdentity.REMOTE_NODE, ip("192.168.1.11"), 0), 0);
  assert.equal(cache.upsertV4(ip("10.244.1.7"), 32, 4711, ip("192.168.1.11"), 0), 0);
  assert.equal(cache.upsertV4(ip("203.0.113.0"), 24, cidr, 0, IpCacheFlag.SKIP_TUNNEL), 0);

  assert.equal(cache.lookupV4(ip("10.244.1.7")), 4711);
  assert.equal(cache.lastTunnelEndpoint, ip("192.168.1.11"));
  assert.equal(cache.lastPrefixLen, 32);
  assert.equal(cache.lookupV4(ip("10.244.1.8")), ReservedIdentity.REMOTE_NODE);
  assert.equal(cache.lastPrefixLen, 24);
  assert.equal(cache.lookupV4(ip("203.0.113.9")), cidr);
  assert.equal(cache.lastFlags, IpCacheFlag.SKIP_TUNNEL);
  assert.equal(cache.lastTunnelEndpoint, 0);
  assert.equal(cache.lookupV4(ip("8.8.8.8")), ReservedIdentity.WORLD);
  assert.equal(cache.lastPrefixLen, 0);

  assert.equal(cache.deleteV4(ip("10.244.1.7"), 32), true);
  assert.equal(cache.lookupV4(ip("10.244.1.7")), ReservedIdentity.REMOTE_NODE);
  assert.equal(cache.deleteV4(0, 0), true);
  assert.equal(cache.lookupV4(ip("8.8.8.8")), 0, "miss gives identity 0");
  assert.equal(cache.lastPrefixLen, -1);
  assert.equal(cache.lastTunnelEndpoint, 0);
});

test("updates overwrite; bad values are INVALID without creating an entry; a full cache is FULL", () => {
  const cache = new IpCache(2);
  cache.upsertV4(ip("10.0.0.1"), 32, 300, 0, 0);
  cache.upsertV4(ip("10.0.0.1"), 32, 301, 5, 0);
  assert.equal(cache.lookupV4(ip("10.0.0.1")), 301);
  assert.equal(cache.lastTunnelEndpoint, 5);
  assert.equal(cache.upsertV4(ip("10.0.0.2"), 32, -1, 0, 0), MapError.INVALID);
  assert.equal(cache.upsertV4(ip("10.0.0.2"), 40, 1, 0, 0), MapError.INVALID);
  assert.equal(cache.size, 1);
  assert.equal(cache.upsertV4(ip("10.0.0.2"), 32, 302, 0, 0), 0);
  assert.equal(cache.upsertV4(ip("10.0.0.3"), 32, 303, 0, 0), MapError.FULL);
});

test("IPv6 entries are read straight from packet bytes", () => {
  const cache = new IpCache(8);
  const frame = new Uint8Array(40);
  frame.set(parseIPv6("fd00:10:244:1::7")!, 24); // e.g. the destination field of an IPv6 header
  cache.upsertV6(parseIPv6("::")!, 0, 0, ReservedIdentity.WORLD_IPV6, 0, 0);
  cache.upsertV6(parseIPv6("fd00:10:244:1::")!, 0, 64, ReservedIdentity.REMOTE_NODE, ip("192.168.1.11"), 0);
  assert.equal(cache.lookupV6(frame, 24), ReservedIdentity.REMOTE_NODE);
  assert.equal(cache.lastPrefixLen, 64);
  cache.upsertV6(frame, 24, 128, 4711, 0, 0);
  assert.equal(cache.lookupV6(frame, 24), 4711);
  assert.equal(cache.deleteV6(frame, 24, 128), true);
  frame[39] = 8;
  assert.equal(cache.lookupV6(frame, 24), ReservedIdentity.REMOTE_NODE);
  assert.equal(cache.lookupV6(parseIPv6("2001:db8::1")!, 0), ReservedIdentity.WORLD_IPV6);
});

test("views share one store; the owner's view sees the owner-local identity and no tunnel", () => {
  const store = new IpCache(64);
  const n1 = store.view(1);
  const n2 = store.view(2);
  const podOnN1 = ip("10.1.1.10");
  const n1Address = ip("192.168.1.1");
  assert.equal(n2.upsertOwnedV4(podOnN1, 32, 300, ip("192.168.1.1"), 0, 1, 300), 0, "written through any view");
  assert.equal(store.upsertOwnedV4(n1Address, 32, ReservedIdentity.REMOTE_NODE, 0, 0, 1, ReservedIdentity.HOST), 0);
  store.upsertV4(0, 0, ReservedIdentity.WORLD, 0, 0);

  assert.equal(n2.lookupV4(podOnN1), 300);
  assert.equal(n2.lastTunnelEndpoint, ip("192.168.1.1"), "another node tunnels to the pod's node");
  assert.equal(n1.lookupV4(podOnN1), 300);
  assert.equal(n1.lastTunnelEndpoint, 0, "the pod's own node routes it locally");
  assert.equal(n1.lookupV4(n1Address), ReservedIdentity.HOST);
  assert.equal(n2.lookupV4(n1Address), ReservedIdentity.REMOTE_NODE);
  assert.equal(store.lookupV4(n1Address), ReservedIdentity.REMOTE_NODE, "a plain cache sees the shared value");
  assert.equal(n1.lookupV4(ip("8.8.8.8")), ReservedIdentity.WORLD);
  assert.equal(n1.size, store.size);

  // A plain upsert clears the owner: every view sees the same value again.
  store.upsertV4(n1Address, 32, 77, 0, 0);
  assert.equal(n1.lookupV4(n1Address), 77);
  assert.equal(n1.deleteV4(podOnN1, 32), true);
  assert.equal(n2.lookupV4(podOnN1), ReservedIdentity.WORLD, "deletes are shared too");
  assert.equal(store.upsertOwnedV4(podOnN1, 32, 300, 0, 0, -1, 300), MapError.INVALID);
  assert.throws(() => store.view(0), RangeError);
});