import { test } from "node:test";
import assert from "node:assert/strict";
import {
  compareQuantities,
  parseQuantity,
  QuantityFormat,
  quantityMilliValue,
  quantityValue,
  type Quantity,
} from "../../src/k8s/quantity.js";

const { DECIMAL_SI: D, BINARY_SI: B, DECIMAL_EXPONENT: X } = QuantityFormat;
const MAX = (1n << 63n) - 1n;

// Upstream k8s.io/apimachinery/pkg/api/resource/quantity_test.go, TestQuantityParse: input and
// the expected value as decQuantity(mantissa, exponent, format).
const UPSTREAM_VALID: [string, bigint, number, QuantityFormat][] = [
  ["0", 0n, 0, D], ["0n", 0n, 0, D], ["0u", 0n, 0, D], ["0m", 0n, 0, D], ["0Ki", 0n, 0, B], ["0k", 0n, 0, D],
  ["0Mi", 0n, 0, B], ["0M", 0n, 0, D], ["0Gi", 0n, 0, B], ["0G", 0n, 0, D], ["0Ti", 0n, 0, B], ["0T", 0n, 0, D],
  ["1", 1n, 0, D],
  ["1Ki", 1024n, 0, B], ["8Ki", 8n * 1024n, 0, B], ["7Mi", 7n * 1024n ** 2n, 0, B], ["6Gi", 6n * 1024n ** 3n, 0, B],
  ["5Ti", 5n * 1024n ** 4n, 0, B], ["4Pi", 4n * 1024n ** 5n, 0, B], ["3Ei", 3n * 1024n ** 6n, 0, B],
  ["10Ti", 10n * 1024n ** 4n, 0, B], ["100Ti", 100n * 1024n ** 4n, 0, B],
  ["5n", 5n, -9, D], ["4u", 4n, -6, D], ["3m", 3n, -3, D], ["9", 9n, 0, D], ["8k", 8n, 3, D], ["50k", 5n, 4, D],
  ["7M", 7n, 6, D], ["6G", 6n, 9, D], ["5T", 5n, 12, D], ["40T", 4n, 13, D], ["300T", 3n, 14, D], ["2P", 2n, 15, D], ["1E", 1n, 18, D],
  ["1E-3", 1n, -3, X], ["1e3", 1n, 3, X], ["1E6", 1n, 6, X], ["1e9", 1n, 9, X], ["1E12", 1n, 12, X], ["1e15", 1n, 15, X], ["1E18", 1n, 18, X],
  ["1e14", 1n, 14, X], ["1e13", 1n, 13, X], ["100.035k", 100035n, 0, D],
  ["0.001", 1n, -3, D], ["0.0005k", 5n, -1, D], ["0.005", 5n, -3, D], ["0.05", 5n, -2, D], ["0.5", 5n, -1, D], ["0.00050k", 5n, -1, D],
  ["0.00500", 5n, -3, D], ["0.05000", 5n, -2, D], ["0.50000", 5n, -1, D], ["0.5e0", 5n, -1, X], ["0.5e-1", 5n, -2, X], ["0.5e-2", 5n, -3, X],
  ["10.035M", 10035n, 3, D],
  ["1.2e3", 12n, 2, X], ["1.3E+6", 13n, 5, X], ["1.40e9", 14n, 8, X], ["1.53E12", 153n, 10, X], ["1.6e15", 16n, 14, X], ["1.7E18", 17n, 17, X],
  ["9.01", 901n, -2, D], ["8.1k", 81n, 2, D], ["7.123456M", 7123456n, 0, D], ["6.987654321G", 6987654321n, 0, D], ["5.444T", 5444n, 9, D],
  ["40.1T", 401n, 11, D], ["300.2T", 3002n, 11, D], ["2.5P", 25n, 14, D], ["1.01E", 101n, 16, D],
  // Things that saturate/round
  ["3.001n", 4n, -9, D], ["1.1E-9", 2n, -9, X], ["0.0000000001", 1n, -9, D], ["0.0000000005", 1n, -9, D], ["0.00000000050", 1n, -9, D],
  ["0.5e-9", 1n, -9, X], ["0.9n", 1n, -9, D], ["0.00000012345", 124n, -9, D], ["0.00000012354", 124n, -9, D],
  ["9Ei", MAX, 0, B], ["9223372036854775807Ki", MAX, 0, B], ["12E", 12n, 18, D],
  // Fractional binary
  ["100.035Ki", 10243584n, -2, B], ["0.5Mi", 524288n, 0, B], ["0.05Gi", 536870912n, -1, B], ["0.025Ti", 274877906944n, -1, B],
  // "Things written by trolls"
  ["0.000000000001Ki", 2n, -9, D], [".001", 1n, -3, D], [".0001k", 100n, -3, D], ["1.", 1n, 0, D], ["1.G", 1n, 9, D],
];

// Upstream's `invalid` list in the same test (plus the empty string it checks first).
const UPSTREAM_INVALID = ["", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", "1e4294967297", " 1", "1 "];

const q = (text: string): Quantity => {
  const r = parseQuantity(text);
  assert.ok(r.ok, `${text}: ${r.ok ? "" : r.error}`);
  return r.value;
};
const expected = (mantissa: bigint, exponent: number, format: QuantityFormat): Quantity => ({ text: "", format, mantissa, exponent });

test("quantities parse as upstream's TestQuantityParse table says (value and format)", () => {
  for (const [input, m, e, format] of UPSTREAM_VALID) {
    const got = q(input);
    assert.equal(compareQuantities(got, expected(m, e, format)), 0, `${input}: got ${got.mantissa}e${got.exponent}`);
    assert.equal(got.format, format, input);
  }
});

test("negative and explicitly positive forms parse to the negated / same value (upstream loops)", () => {
  for (const [input, m, e, format] of UPSTREAM_VALID) {
    const neg = q("-" + input);
    assert.equal(compareQuantities(neg, expected(-m, e, format)), 0, `-${input}`);
    assert.equal(neg.format, format, `-${input}`);
    assert.equal(compareQuantities(q("+" + input), expected(m, e, format)), 0, `+${input}`);
  }
});

test("malformed quantities are refused with upstream's error texts", () => {
  for (const input of UPSTREAM_INVALID) assert.equal(parseQuantity(input).ok, false, JSON.stringify(input));
  const wrong = parseQuantity("1.1.M");
  assert.ok(!wrong.ok && wrong.error === "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  const suffix = parseQuantity("1K");
  assert.ok(!suffix.ok && suffix.error === "unable to parse quantity's suffix");
});

test("Value and MilliValue round up away from zero (upstream TestQuantityRoundUp at scales 0 and -3)", () => {
  assert.equal(quantityValue(q("9.01")), 10);
  assert.equal(quantityValue(q("-9.01")), -10);
  assert.equal(quantityMilliValue(q("9.01")), 9010);
  assert.equal(quantityMilliValue(q("-9.01")), -9010);
  // The units the scheduler and metrics read.
  assert.equal(quantityMilliValue(q("250m")), 250);
  assert.equal(quantityMilliValue(q("2")), 2000);
  assert.equal(quantityMilliValue(q("0.1")), 100);
  assert.equal(quantityMilliValue(q("1n")), 1);
  assert.equal(quantityValue(q("128Mi")), 134217728);
  assert.equal(quantityValue(q("1G")), 1e9);
  assert.equal(quantityValue(q("1e3")), 1000);
  assert.equal(quantityValue(q("110")), 110);
});
