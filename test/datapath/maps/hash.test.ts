import { test } from "node:test";
import assert from "node:assert/strict";
import { fmix32, fmix32i, hash1, hash2, hashWords, hashWordsI } from "../../../datapath/maps/hash.js";

/** Little-endian 32-bit words of an ASCII string (MurmurHash3 x86_32 reads 4-byte blocks little-endian). */
function words(s: string): Uint32Array {
  const out = new Uint32Array(s.length / 4);
  for (let i = 0; i < out.length; i++) {
    out[i] = (s.charCodeAt(4 * i) | (s.charCodeAt(4 * i + 1) << 8) | (s.charCodeAt(4 * i + 2) << 16) | (s.charCodeAt(4 * i + 3) << 24)) >>> 0;
  }
  return out;
}

test("MurmurHash3 x86_32 published vectors for seed 0x9747b28c (SMHasher-verified)", () => {
  assert.equal(hashWords(words("aaaa"), 0, 1), 0x5a97808a);
  assert.equal(hashWords(words("abcd"), 0, 1), 0xf0478627);
});

test("int32 variants carry the same 32 bits as the unsigned ones", () => {
  for (let i = 0; i < 2000; i++) {
    const a = Math.imul(i, 0x9e3779b1) >>> 0;
    const b = Math.imul(i + 7, 0x85ebca6b) >>> 0;
    const w = new Uint32Array([a, b, i]);
    assert.equal(fmix32i(a) >>> 0, fmix32(a));
    assert.ok(Number.isInteger(fmix32i(a)) && fmix32i(a) >= -(2 ** 31) && fmix32i(a) < 2 ** 31);
    assert.equal(hash1(a) >>> 0, hashWords(w, 0, 1));
    assert.equal(hash2(a, b) >>> 0, hashWords(w, 0, 2));
    assert.equal(hashWordsI(w, 0, 3) >>> 0, hashWords(w, 0, 3));
  }
});
