import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { makeCloser } from '../../src/shared/closer.ts';

test('shutdown has one deadline for all its steps, and still starts the steps after a hung one', async () => {
  const ran: [string, number][] = [];
  const warned: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => warned.push(JSON.parse(line).err.message) });
  const hang = () => new Promise<never>(() => {});
  const close = makeCloser(
    () => [
      { name: 'quick', run: async (ms) => ran.push(['quick', ms]) },
      {
        name: 'hung',
        run: (ms) => {
          ran.push(['hung', ms]);
          return hang();
        },
      },
      {
        name: 'after',
        run: (ms) => {
          ran.push(['after', ms]);
          return hang();
        },
      },
      { name: 'last', run: async (ms) => ran.push(['last', ms]) },
    ],
    log,
    200,
  );
  await close();
  assert.deepEqual(
    ran.map(([name]) => name),
    ['quick', 'hung', 'after', 'last'],
  );
  assert.ok(ran[0]![1] > 0 && ran[0]![1] <= 200);
  // The hung step used up the deadline: what follows gets no time of its own to wait.
  assert.equal(ran[2]![1], 0);
  assert.equal(ran[3]![1], 0);
  assert.deepEqual(warned, [
    'hung did not finish within the 200 ms shutdown deadline',
    'after did not finish within the 200 ms shutdown deadline',
  ]);
  assert.equal(close(), close(), 'later calls share the one shutdown');
});
