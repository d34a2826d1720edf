import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Gate } from '../../src/ingest/gate.ts';

test('the gate runs at most its limit at once, in arrival order, and every task finishes', async () => {
  const gate = new Gate(2);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  const releases: (() => void)[] = [];
  const tasks = Array.from({ length: 6 }, (_, i) =>
    gate.run(async () => {
      order.push(i);
      peak = Math.max(peak, ++running);
      await new Promise<void>((r) => releases.push(r));
      running--;
      return i;
    }),
  );
  // Finish one task at a time; each frees the slot for the next in line.
  while (order.length < 6 || releases.length) {
    await new Promise((r) => setImmediate(r));
    assert.ok(running <= 2);
    releases.shift()?.();
  }
  assert.deepEqual(await Promise.all(tasks), [0, 1, 2, 3, 4, 5]);
  assert.equal(peak, 2);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
});

test('after a connectivity error, queued tasks fail at once with 503 instead of each timing out', async () => {
  const gate = new Gate(1);
  let calls = 0;
  const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const results = await Promise.allSettled(
    Array.from({ length: 3 }, () =>
      gate.run(async () => {
        calls++;
        throw down;
      }),
    ),
  );
  assert.equal(calls, 1);
  assert.deepEqual(
    results.map((r) => r.status),
    ['rejected', 'rejected', 'rejected'],
  );
  assert.equal(((results[2] as PromiseRejectedResult).reason as { status: number }).status, 503);
});
