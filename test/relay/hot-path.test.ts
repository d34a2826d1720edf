import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { insertPrice } from '../../src/relay/repo.ts';
import { Spending, type Ticket } from '../../src/relay/spend.ts';
import type { RelayKey } from '../../src/relay/keys.ts';
import { call } from '../helpers/http.ts';
import { relayFixture, type RelayFixture } from './setup.ts';

let fx: RelayFixture;

before(async () => {
  fx = await relayFixture();
  const upstream = await fx.fake();
  await fx.channel({ baseUrl: upstream.base, models: ['hot-m'] });
  await fx.model('hot-m', ['low']);
});
after(() => fx.close());

const CALLS = 200;

test('a key with limits and a budget costs no database round trip per call, and Redis is not asked per call before forwarding', async () => {
  await insertPrice(fx.app.db, {
    model: 'hot-m',
    currency: 'USD',
    inputNanos: 1000,
    cachedInputNanos: 1000,
    outputNanos: 1000,
    effectiveAt: null,
  });
  const { key } = await fx.key(['*'], {
    rpm: 1_000_000,
    tpm: 100_000_000,
    budgetNanos: 1e15,
    budgetCurrency: 'USD',
    budgetPeriod: 'month',
  });
  const chat = () =>
    call(fx.app.url, 'POST', '/v1/chat/completions', {
      bearer: key,
      body: { model: 'hot-m', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 },
    });
  // Warm: key, directory and prices cached, the budget period seeded.
  assert.equal((await chat()).status, 200);

  const redis = fx.app.door.app.redis;
  const sent: string[] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command) => {
    sent.push(command.name === 'evalsha' || command.name === 'eval' ? 'script' : command.name);
    return send(command);
  };
  // Every query the front door sends to PostgreSQL (pg-promise's query event; the usage worker has its own pool).
  const options = fx.app.door.app.db.$config.options as { query?: (e: { query: unknown }) => void };
  const queries: unknown[] = [];
  options.query = (e) => queries.push(e.query);
  const started = performance.now();
  try {
    for (let i = 0; i < CALLS; i++) assert.equal((await chat()).status, 200);
  } finally {
    redis.sendCommand = send;
    options.query = undefined;
  }
  // The key and the directory (channels, models, prices) are re-read in the background at most
  // twice a second, however many calls come; the rest are the usage worker's batched inserts,
  // told apart by their INSERT.
  const refreshes = Math.ceil((performance.now() - started) / 500) + 1;
  const reads = queries.map(String).filter((q) => !/\binsert into "?relay_usage"?/i.test(q));
  assert.ok(reads.length <= refreshes * 4, `${reads.length} reads in ${refreshes} half-seconds of ${CALLS} calls`);
  // Leases, and the settling of their calls with their release, come once per many calls.
  const scripts = sent.filter((c) => c === 'script').length;
  assert.ok(scripts <= CALLS / 4, `${scripts} scripts for ${CALLS} calls`);
});

test('leases of two front doors never pass the budget together', async () => {
  const prefix = `${fx.app.config.QUEUE_PREFIX}:doors`; // under the test's prefix, so its cleanup removes these keys too
  const doors = [0, 1].map(() => new Redis(fx.app.config.REDIS_URL));
  try {
    // Every settle and release must succeed: their failures are only logged.
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const spending = doors.map((r) => new Spending(r, prefix, fx.app.db, log));
    const { id } = await fx.key(['*'], { budgetNanos: 1000, budgetCurrency: 'USD', budgetPeriod: 'total' });
    const key: RelayKey = {
      id,
      accountId: null,
      group: 'default',
      models: null,
      rpm: null,
      tpm: null,
      budget: { nanos: 1000, currency: 'USD', period: 'total' },
      expiresAt: null,
      siteId: null,
    };
    // 40 calls of 100 nanos each through two front doors at once: the budget covers 10.
    const answers = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        spending[i % 2]!.admit(key, 0, 100).then((ticket) => ({ ticket, door: spending[i % 2]! })),
      ),
    );
    const admitted: { ticket: Ticket; door: Spending }[] = [];
    for (const a of answers) {
      if (a.status === 'fulfilled') admitted.push(a.value);
      else assert.equal((a.reason as { code: string }).code, 'insufficient_quota');
    }
    assert.equal(admitted.length, 10);
    // Settled at half their reservation; the leases' rest is given back when they are released.
    for (const { ticket, door } of admitted) door.settle(ticket, 10, 50);
    await Promise.all(spending.map((s) => s.close()));
    const spend = await doors[0]!.hgetall(`${prefix}:relay:{${id}}:spend:total`);
    assert.deepEqual([Number(spend.spent), Number(spend.reserved)], [500, 0]);
    assert.deepEqual(warnings, []);
    assert.deepEqual(await doors[0]!.hlen(`${prefix}:relay:{${id}}:spend:total:amounts`), 0, 'every lease released');
  } finally {
    for (const r of doors) r.disconnect();
  }
});

test("a hot key's spent lease is released in its next lease's script, and the budget and tokens still add up", async () => {
  const prefix = `${fx.app.config.QUEUE_PREFIX}:hot`; // under the test's prefix, so its cleanup removes these keys too
  const redis = new Redis(fx.app.config.REDIS_URL);
  try {
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const spending = new Spending(redis, prefix, fx.app.db, log);
    const { id } = await fx.key(['*'], { budgetNanos: 1e12, budgetCurrency: 'USD', budgetPeriod: 'total' });
    const key: RelayKey = {
      id,
      accountId: null,
      group: 'default',
      models: null,
      rpm: 1_000_000,
      tpm: 1_000_000,
      budget: { nanos: 1e12, currency: 'USD', period: 'total' },
      expiresAt: null,
      siteId: null,
    };
    // SETTLE scripts carry 5 keys and 8 arguments (after the sha and the key count), the 6th
    // of them 1 when the script releases a lease; LEASE scripts carry more.
    let leases = 0;
    let releasesAlone = 0;
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command) => {
      if (command.name === 'evalsha' || command.name === 'eval') {
        if (command.args.length !== 15) leases++;
        else if (String(command.args[12]) === '1') releasesAlone++;
      }
      return send(command);
    };
    // One call after another, as a hot key's calls come.
    const CALLS_HERE = 160;
    const started = performance.now();
    for (let i = 0; i < CALLS_HERE; i++) spending.settle(await spending.admit(key, 1_000_000, 100), 7, 40);
    const elapsed = performance.now() - started;
    redis.sendCommand = send;
    assert.ok(leases >= CALLS_HERE / 16 && leases <= CALLS_HERE / 8, `${leases} leases for ${CALLS_HERE} calls`);
    // A release goes alone only from the flush, every 100 ms (SETTLE_MS) at most: on a quiet
    // machine the loop takes a few ms, and one release per lease (~10) would fail this.
    assert.ok(
      releasesAlone <= Math.ceil(elapsed / 100) + 1,
      `${releasesAlone} releases of their own in ${elapsed.toFixed(0)} ms for ${leases} leases`,
    );
    await spending.close();
    const keys = `${prefix}:relay:{${id}}`;
    const spend = await redis.hgetall(`${keys}:spend:total`);
    assert.deepEqual([Number(spend.spent), Number(spend.reserved)], [CALLS_HERE * 40, 0]);
    assert.equal(await redis.hlen(`${keys}:spend:total:amounts`), 0, 'every lease released');
    // The tokens bucket was charged every call's tokens (it refills meanwhile: at most by what the test's time allows).
    const tokens = Number(await redis.hget(`${keys}:tpm`, 'tokens'));
    assert.ok(tokens <= 1_000_000 - CALLS_HERE * 7 + 1_000_000 / 60, `${tokens} tokens left`);
    assert.deepEqual(warnings, []);
  } finally {
    redis.disconnect();
  }
});
