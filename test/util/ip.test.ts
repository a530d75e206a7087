import { test } from "node:test";
import assert from "node:assert/strict";
import { formatIPv4, formatIPv6, ipv4InPrefix, parseIPv4, parseIPv4Cidr, parseIPv6 } from "../../src/util/ip.js";
import { formatMac, parseMac, isGroupMac, readMac, writeMac } from "../../src/util/mac.js";

test("IPv4 parse/format round trip and rejects malformed text", () => {
  assert.equal(parseIPv4("10.1.8.30"), 0x0a01081e);
  assert.equal(formatIPv4(0xffffffff), "255.255.255.255");
  assert.equal(parseIPv4("256.1.1.1"), null);
  assert.equal(parseIPv4("1.2.3"), null);
  assert.equal(parseIPv4("1.2.3.x"), null);
  assert.deepEqual(parseIPv4Cidr("10.224.0.0/16"), { address: 0x0ae00000, prefixLength: 16 });
  assert.equal(parseIPv4Cidr("10.0.0.0/33"), null);
});

test("IPv4 prefix containment", () => {
  const net = parseIPv4("10.1.8.0")!;
  assert.equal(ipv4InPrefix(parseIPv4("10.1.8.100")!, net, 24), true);
  assert.equal(ipv4InPrefix(parseIPv4("10.1.9.1")!, net, 24), false);
  assert.equal(ipv4InPrefix(parseIPv4("192.168.1.1")!, net, 0), true);
});

test("IPv6 formats as RFC 5952 (the form tshark prints)", () => {
  const cases: [string, string][] = [
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["fe80:0:0:0:2c0:4fff:fe68:a2", "fe80::2c0:4fff:fe68:a2"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["::", "::"],
    ["ff02::1:ff00:1", "ff02::1:ff00:1"],
  ];
  for (const [input, expected] of cases) {
    const bytes = parseIPv6(input);
    assert.ok(bytes, input);
    assert.equal(formatIPv6(bytes), expected);
  }
  assert.equal(parseIPv6("1::2::3"), null);
  assert.equal(parseIPv6("1:2:3:4:5:6:7"), null);
});

test("MAC read/write/format and group bit", () => {
  const mac = parseMac("02:42:AC:11:00:02")!;
  assert.equal(formatMac(mac), "02:42:ac:11:00:02");
  const buf = new Uint8Array(8);
  writeMac(buf, 1, mac);
  assert.equal(readMac(buf, 1), mac);
  assert.equal(isGroupMac(parseMac("01:00:5e:00:00:01")!), true);
  assert.equal(isGroupMac(mac), false);
});
