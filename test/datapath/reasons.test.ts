import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DROP_REASONS,
  DropReason,
  RETIRED_DROP_CODES,
  TRACE_POINTS,
  TracePoint,
  dropReasonByCode,
  dropReasonName,
  tracePointByCode,
} from "../../datapath/reasons.js";

// Oracle: Cilium's bpf/lib/drop_reasons.h (DROP_* = -code), transcribed for the codes cnisim reuses.
const CILIUM_DROP_MACROS: Readonly<Record<number, string>> = {
  132: "DROP_INVALID_SIP", 133: "DROP_POLICY", 134: "DROP_INVALID", 135: "DROP_CT_INVALID_HDR",
  136: "DROP_FRAG_NEEDED", 137: "DROP_CT_UNKNOWN_PROTO", 139: "DROP_UNKNOWN_L3", 141: "DROP_WRITE_ERROR",
  142: "DROP_UNKNOWN_L4", 143: "DROP_UNKNOWN_ICMP4_CODE", 144: "DROP_UNKNOWN_ICMP4_TYPE",
  145: "DROP_UNKNOWN_ICMP6_CODE", 146: "DROP_UNKNOWN_ICMP6_TYPE", 147: "DROP_NO_TUNNEL_KEY",
  150: "DROP_UNKNOWN_TARGET", 151: "DROP_UNROUTABLE", 155: "DROP_CT_CREATE_FAILED", 156: "DROP_INVALID_EXTHDR",
  157: "DROP_FRAG_NOSUPPORT", 158: "DROP_NO_SERVICE", 160: "DROP_NO_TUNNEL_ENDPOINT", 163: "DROP_UNKNOWN_CT",
  164: "DROP_HOST_UNREACHABLE", 166: "DROP_UNSUPPORTED_L2", 167: "DROP_NAT_NO_MAPPING", 168: "DROP_NAT_UNSUPP_PROTO",
  169: "DROP_NO_FIB", 170: "DROP_ENCAP_PROHIBITED", 171: "DROP_INVALID_IDENTITY", 172: "DROP_UNKNOWN_SENDER",
  174: "DROP_IS_CLUSTER_IP", 175: "DROP_FRAG_NOT_FOUND", 177: "DROP_NOT_IN_SRC_RANGE", 181: "DROP_POLICY_DENY",
  182: "DROP_VLAN_FILTERED", 183: "DROP_INVALID_VNI", 196: "DROP_TTL_EXCEEDED", 203: "DROP_EP_NOT_READY",
};
// Codes Cilium marks unused (retired there); cnisim must not give them a meaning.
const CILIUM_UNUSED = [130, 131, 138, 148, 149, 152, 186];

// Oracle: Cilium's enum trace_point (bpf/lib/notify.h) and the monitor's names (pkg/monitor/api/types.go).
const CILIUM_TRACE_POINTS: Readonly<Record<number, [string, string]>> = {
  0: ["TRACE_TO_LXC", "to-endpoint"], 1: ["TRACE_TO_PROXY", "to-proxy"], 2: ["TRACE_TO_HOST", "to-host"],
  3: ["TRACE_TO_STACK", "to-stack"], 4: ["TRACE_TO_OVERLAY", "to-overlay"], 5: ["TRACE_FROM_LXC", "from-endpoint"],
  6: ["TRACE_FROM_PROXY", "from-proxy"], 7: ["TRACE_FROM_HOST", "from-host"], 8: ["TRACE_FROM_STACK", "from-stack"],
  9: ["TRACE_FROM_OVERLAY", "from-overlay"], 10: ["TRACE_FROM_NETWORK", "from-network"],
  11: ["TRACE_TO_NETWORK", "to-network"], 12: ["TRACE_FROM_CRYPTO", "from-crypto"], 13: ["TRACE_TO_CRYPTO", "to-crypto"],
};

// Released rows: append-only means each of these keeps its code and name forever.
const RELEASED_DROPS: readonly [number, string][] = [
  [133, "POLICY_DENIED"], [134, "INVALID_PACKET"], [139, "UNKNOWN_L3"], [158, "NO_SERVICE"], [181, "POLICY_DENY"],
  [196, "TTL_EXCEEDED"], [1000, "QUEUE_FULL"], [1001, "MTU_EXCEEDED"], [1002, "LINK_DOWN"], [1003, "NO_NEIGHBOUR"],
  [1004, "NO_ROUTE"], [1005, "MAP_FULL"],
];

test("drop codes and names are unique; descriptions are present", () => {
  assert.equal(new Set(DROP_REASONS.map((r) => r.code)).size, DROP_REASONS.length);
  assert.equal(new Set(DROP_REASONS.map((r) => r.name)).size, DROP_REASONS.length);
  for (const r of DROP_REASONS) {
    assert.match(r.name, /^[A-Z][A-Z0-9_]*$/);
    assert.ok(r.description.length > 10, `${r.name} needs a description`);
    assert.ok(Number.isInteger(r.code) && r.code > 0);
  }
});

test("codes below 1000 are Cilium's, with the macro of the same number; 1000+ are emulator-only", () => {
  for (const r of DROP_REASONS) {
    const upstream = "upstream" in r ? r.upstream : undefined;
    if (r.code < 1000) {
      assert.equal(upstream, CILIUM_DROP_MACROS[r.code], `code ${r.code} must match Cilium's macro`);
      assert.ok(!CILIUM_UNUSED.includes(r.code), `code ${r.code} is unused upstream`);
    } else {
      assert.equal(upstream, undefined, `${r.name} is emulator-only`);
    }
  }
});

test("append-only: released rows keep their codes; retired codes are not reused", () => {
  for (const [code, name] of RELEASED_DROPS) {
    assert.equal(dropReasonByCode(code)?.name, name, `code ${code}`);
    assert.equal(DropReason[name as keyof typeof DropReason], code);
  }
  for (const code of RETIRED_DROP_CODES) assert.equal(dropReasonByCode(code), undefined);
  assert.equal(DropReason.POLICY_DENIED, 133);
  assert.equal(dropReasonName(196), "TTL_EXCEEDED");
  assert.equal(dropReasonName(4242), "4242");
});

test("trace points: Cilium's observation points with their numbers and names, emulator ones from 1000", () => {
  assert.equal(new Set(TRACE_POINTS.map((r) => r.code)).size, TRACE_POINTS.length);
  assert.equal(new Set(TRACE_POINTS.map((r) => r.name)).size, TRACE_POINTS.length);
  for (const [code, [macro, label]] of Object.entries(CILIUM_TRACE_POINTS)) {
    const row = tracePointByCode(Number(code));
    assert.ok(row !== undefined, `trace point ${code}`);
    assert.equal("upstream" in row ? row.upstream : undefined, macro);
    assert.equal(row.label, label);
  }
  for (const r of TRACE_POINTS) if (r.code >= 14) assert.ok(r.code >= 1000 && !("upstream" in r));
  assert.equal(TracePoint.TO_ENDPOINT, 0);
  assert.equal(TracePoint.FROM_NETWORK, 10);
});
