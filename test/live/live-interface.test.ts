// The live interface's error classification (libpcap and Node messages -> what to fix), the filter
// that keeps the host's own frames out, and opening an interface that does not exist.

import { test } from "node:test";
import assert from "node:assert/strict";
import { composeFilter, LiveErrorKind, LiveInterface, formatLiveError } from "../../src/pcap/live.js";
import { classifyOpenError } from "../../src/pcap/live/live-interface.js";
import { classifyLoadError } from "../../src/pcap/live/load-cap.js";

test("libpcap's open messages map to error kinds with a fix", () => {
  // Texts as libpcap 1.10 words them (pcap-linux.c / pcap.c).
  const cases: [string, string][] = [
    ["eth9: You don't have permission to perform this capture on that device (socket: Operation not permitted)", LiveErrorKind.NO_PRIVILEGE],
    ["No such device exists", LiveErrorKind.NO_SUCH_INTERFACE],
    ["can't parse filter expression: syntax error", LiveErrorKind.BAD_FILTER],
    ["eth9: That device is not up", LiveErrorKind.OPEN_FAILED],
  ];
  for (const [message, kind] of cases) assert.equal(classifyOpenError("eth9", message, "tcp port").kind, kind, message);
  const bad = classifyOpenError("eth9", "can't parse filter expression: syntax error", "tcp prot 80");
  assert.equal(formatLiveError(bad), 'live capture on eth9: can\'t parse filter expression: syntax error in filter "tcp prot 80" (see pcap-filter(7))');
  assert.match(classifyOpenError("eth9", "eth9: That device is not up", "").hint, /ip link set eth9 up/);
});

test("a missing cap module and a missing libpcap are told apart", () => {
  const missing = Object.assign(new Error("Cannot find module 'cap'"), { code: "MODULE_NOT_FOUND" });
  assert.equal(classifyLoadError(missing).kind, LiveErrorKind.MODULE_MISSING);
  assert.match(classifyLoadError(missing).hint, /npm install cap/);
  const noLib = new Error("libpcap.so.0.8: cannot open shared object file: No such file or directory");
  assert.equal(classifyLoadError(noLib).kind, LiveErrorKind.LIBPCAP_MISSING);
  assert.match(classifyLoadError(noLib).hint, /apt-get install libpcap0.8/);
});

test("the capture filter leaves out frames sent from the interface's own MAC and keeps the user's filter", () => {
  assert.equal(composeFilter("", "02:00:00:00:00:01"), "not ether src 02:00:00:00:00:01");
  assert.equal(composeFilter(" tcp port 80 ", "02:00:00:00:00:01"), "not ether src 02:00:00:00:00:01 and (tcp port 80)");
  assert.equal(composeFilter("icmp", null), "icmp");
});

test("opening an interface that does not exist is a typed error, not a crash", (t) => {
  const r = LiveInterface.open("cnisim-none0");
  assert.equal(r.ok, false);
  if (r.ok) return;
  if (r.error.kind === LiveErrorKind.MODULE_MISSING || r.error.kind === LiveErrorKind.LIBPCAP_MISSING) {
    t.diagnostic(`cap is not usable here: ${formatLiveError(r.error)}`);
    assert.equal(r.error.iface, "cnisim-none0");
    return;
  }
  assert.ok(r.error.kind === LiveErrorKind.NO_SUCH_INTERFACE || r.error.kind === LiveErrorKind.NO_PRIVILEGE, formatLiveError(r.error));
  assert.equal(r.error.iface, "cnisim-none0");
});
