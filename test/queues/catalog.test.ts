import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import { JOBS, QUEUES, USAGE_QUEUE } from '../../src/queues/catalog.ts';
import { createRedis } from '../../src/redis.ts';
import { QUEUE_WORKERS } from '../../workers/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every file `entry` reaches through relative static imports. */
function importGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)) {
      visit(resolve(dirname(file), m[1]!));
    }
  };
  visit(resolve(ROOT, entry));
  return seen;
}

describe('job catalog', () => {
  test('every job in the catalog has a handler on its queue, and every queue a worker', () => {
    assert.deepEqual(Object.keys(QUEUE_WORKERS).sort(), [...QUEUES].sort());
    for (const [key, def] of Object.entries(JOBS)) {
      assert.equal(
        typeof (QUEUE_WORKERS[def.queue].handlers as Record<string, unknown>)[key],
        'function',
        `${key} has no handler on ${def.queue}`,
      );
    }
    const names = Object.values(JOBS).map((d) => d.name);
    assert.equal(new Set(names).size, names.length, 'job names are unique');
  });

  test('the front door does not load the worker processors', () => {
    const reached = [...importGraph('src/front-door.ts')].map((f) => relative(ROOT, f));
    assert.ok(reached.includes('src/queues/catalog.ts'));
    assert.deepEqual(
      reached.filter((f) => f.startsWith('workers/')),
      [],
    );
  });

  describe('dispatch', () => {
    let app: TestApp;
    let events: QueueEvents;
    let connection: Redis;
    before(async () => {
      app = await startTestApp({ workers: [USAGE_QUEUE] });
      connection = createRedis(app.config.REDIS_URL, { blocking: true, name: 'test-usage-events' });
      events = new QueueEvents(USAGE_QUEUE, { connection, prefix: app.config.QUEUE_PREFIX });
      await events.waitUntilReady();
    });
    after(async () => {
      await events.close();
      await connection.quit();
      await app.close();
    });

    async function failure(name: string, data: unknown): Promise<{ reason: string; attempts: number }> {
      const queue = app.door.app.queues.get(USAGE_QUEUE);
      const failed = new Promise<string>((res) => {
        const on = (e: { jobId: string; failedReason: string }) => {
          if (e.jobId !== `${name}-probe`) return;
          events.off('failed', on);
          res(e.failedReason);
        };
        events.on('failed', on);
      });
      await queue.add(name, data, { jobId: `${name}-probe`, attempts: 3, backoff: { type: 'fixed', delay: 10 } });
      const reason = await failed;
      const job = await queue.getJob(`${name}-probe`);
      return { reason, attempts: job!.attemptsMade };
    }

    test('a job name the catalog does not know fails at once, without retries', async () => {
      const { reason, attempts } = await failure('usage.nope', { rows: [] });
      assert.match(reason, /unknown name usage\.nope/);
      assert.equal(attempts, 1);
    });

    test('a payload its catalog schema refuses fails at once, without retries', async () => {
      const { reason, attempts } = await failure(JOBS.usageCalls.name, { rows: [] });
      assert.match(reason, /invalid payload/);
      assert.equal(attempts, 1);
    });
  });
});
