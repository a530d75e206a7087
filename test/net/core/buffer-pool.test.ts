// The packet buffer pool: exact-length views over recycled buffers, reuse of what the last holder
// released (most recent first), and no reuse of buffers it did not hand out or already got back.

import { test } from "node:test";
import assert from "node:assert/strict";
import { PacketBufferPool, consumeSkb } from "../../../src/skb/buffer-pool.js";
import { DEFAULT_HEADROOM, SkBuff } from "../../../src/skb/skbuff.js";

test("a released buffer is handed out again, most recent first; views have the asked length", () => {
  const pool = new PacketBufferPool();
  const a = pool.acquire(9128);
  const b = pool.acquire(9000);
  assert.equal(a.length, 9128);
  assert.notEqual(a.buffer, b.buffer);
  pool.release(a);
  pool.release(b);
  const c = pool.acquire(4000);
  assert.equal(c.length, 4000);
  assert.equal(c.buffer, b.buffer, "the last released buffer comes back first (cache-warm)");
  assert.equal(pool.acquire(9100).buffer, a.buffer);
});

test("foreign views, second releases and oversize requests never put a buffer in two hands", () => {
  const pool = new PacketBufferPool();
  const foreign = new Uint8Array(1500);
  pool.release(foreign);
  const a = pool.acquire(1500);
  assert.notEqual(a.buffer, foreign.buffer);
  pool.release(a);
  pool.release(a); // a second release of the same buffer is ignored
  const x = pool.acquire(1500);
  const y = pool.acquire(1500);
  assert.notEqual(x.buffer, y.buffer);
  const huge = pool.acquire(200_000);
  assert.equal(huge.length, 200_000);
  pool.release(huge);
  assert.notEqual(pool.acquire(200_000).buffer, huge.buffer, "buffers above the largest class are not pooled");
});

test("consumeSkb recycles the packet's buffer and leaves the SkBuff empty", () => {
  const pool = new PacketBufferPool();
  pool.poison = 0xa5;
  const data = pool.acquire(DEFAULT_HEADROOM + 100);
  data.fill(1);
  const skb = new SkBuff(1, data, DEFAULT_HEADROOM, DEFAULT_HEADROOM + 100);
  consumeSkb(skb, pool);
  assert.equal(skb.length, 0);
  assert.equal(skb.bytes().length, 0);
  assert.equal(data[DEFAULT_HEADROOM], 0xa5, "the released bytes were poisoned (a stale reader would see it)");
  assert.equal(pool.acquire(200).buffer, data.buffer);
});

test("acquireWithZeros tells the zeros the last holder noted; acquire and poisoning forget them", () => {
  const pool = new PacketBufferPool();
  const a = pool.acquireWithZeros(9000);
  assert.ok(pool.zeroStart === 0 && pool.zeroEnd === 9000, "a new buffer is all zeros");
  a.fill(7, 0, 200);
  pool.noteZeros(a, 200, 9000);
  pool.release(a);
  const b = pool.acquireWithZeros(5000);
  assert.equal(b.buffer, a.buffer);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [200, 5000], "clamped to the view");
  pool.release(b);
  const c = pool.acquireWithZeros(9000);
  assert.equal(c.buffer, a.buffer);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [5000, 9000], "the holder in between noted nothing, and could not reach past its 5000 bytes");
  c.fill(9, 0, 100);
  pool.noteZeros(c, 100, 9000);
  pool.release(c);
  const d = pool.acquireWithZeros(3000);
  assert.equal(d.buffer, a.buffer);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [100, 3000]);
  d.fill(9);
  pool.release(d);
  const e = pool.acquireWithZeros(6000);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [3000, 6000], "zeros past the short view stayed known");
  pool.noteZeros(e, 4000, 6000);
  pool.release(e);
  const f = pool.acquireWithZeros(9000);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [4000, 9000], "zeros up to the view's end joined the ones past it");
  pool.noteZeros(f, 0, 9000);
  pool.poison = 0xa5;
  pool.release(c);
  pool.acquireWithZeros(9000);
  assert.ok(pool.zeroEnd <= pool.zeroStart, "poisoned bytes are not zeros");
});

test("noteZeros reaches the buffer's next holder whether the view is the one handed out last or an older one; other views of it never do", () => {
  const pool = new PacketBufferPool();
  const older = pool.acquireWithZeros(9000);
  const last = pool.acquireWithZeros(9000);
  pool.noteZeros(older, 100, 9000); // not the last view handed out: found through its buffer
  pool.noteZeros(last, 300, 9000); // the last one: known without asking its buffer
  const inner = new Uint8Array(last.buffer, 4, 100);
  pool.noteZeros(inner, 0, 100); // a view not at byte 0 of its buffer is ignored
  pool.release(older);
  pool.release(last);
  const again = pool.acquireWithZeros(9000);
  assert.equal(again.buffer, last.buffer);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [300, 9000]);
  const first = pool.acquireWithZeros(9000);
  assert.equal(first.buffer, older.buffer);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [100, 9000]);
  pool.release(again);
  pool.release(first);
  pool.noteZeros(first, 0, 9000); // released (though the view handed out last): no longer its holder's to note
  assert.equal(pool.acquireWithZeros(9000).buffer, first.buffer);
  assert.deepEqual([pool.zeroStart, pool.zeroEnd], [0, 0], "its last holder noted nothing");
});
