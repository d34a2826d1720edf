import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  dayOfDate,
  dayStart,
  instantOf,
  isoDate,
  isoInstant,
  localDay,
  weekday,
} from '../../src/analytics/calendar.ts';
import { cover, tile } from '../../src/analytics/cover.ts';
import { resolveWindow, windowAt } from '../../src/analytics/window.ts';

const at = (iso: string) => Date.parse(iso);
const start = (tz: string, date: string) => new Date(dayStart(tz, dayOfDate(date))).toISOString();

test('local days start at local midnight, daylight saving time included', () => {
  assert.equal(start('Asia/Shanghai', '2026-11-02'), '2026-11-01T16:00:00.000Z');
  assert.equal(start('UTC', '2026-11-02'), '2026-11-02T00:00:00.000Z');
  assert.equal(start('Asia/Kathmandu', '2026-11-02'), '2026-11-01T18:15:00.000Z');
  assert.equal(start('Asia/Kolkata', '2026-11-02'), '2026-11-01T18:30:00.000Z');
  // New York: 2026-03-08 has 23 hours, 2026-11-01 has 25.
  assert.equal(
    dayStart('America/New_York', dayOfDate('2026-03-09')) - dayStart('America/New_York', dayOfDate('2026-03-08')),
    23 * 3_600_000,
  );
  assert.equal(
    dayStart('America/New_York', dayOfDate('2026-11-02')) - dayStart('America/New_York', dayOfDate('2026-11-01')),
    25 * 3_600_000,
  );
  // America/Santiago skips midnight when its summer time begins (2026-09-06): the day starts at 01:00.
  assert.equal(start('America/Santiago', '2026-09-06'), '2026-09-06T04:00:00.000Z');
  assert.equal(localDay('America/Santiago', at('2026-09-06T03:59:59Z')), dayOfDate('2026-09-05'));
});

test('day numbers, dates and weekdays', () => {
  assert.equal(isoDate(dayOfDate('2024-02-29')), '2024-02-29');
  assert.equal(weekday(dayOfDate('2026-11-02')), 0);
  assert.equal(weekday(dayOfDate('2026-11-01')), 6);
});

test('cover tiles a window exactly with the coarsest buckets that fit', () => {
  const tiles = cover(at('2026-08-22T16:00:00Z'), at('2026-11-20T16:00:00Z'));
  assert.deepEqual(
    tiles.map((c) => [c.grain, new Date(c.lo).toISOString(), new Date(c.hi).toISOString()]),
    [
      ['h4', '2026-08-22T16:00:00.000Z', '2026-08-23T00:00:00.000Z'],
      ['d', '2026-08-23T00:00:00.000Z', '2026-09-01T00:00:00.000Z'],
      ['m', '2026-09-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
      ['d', '2026-11-01T00:00:00.000Z', '2026-11-20T00:00:00.000Z'],
      ['h4', '2026-11-20T00:00:00.000Z', '2026-11-20T16:00:00.000Z'],
    ],
  );
  // Kathmandu (+05:45): quarter hours to the hour, hours to a 4-hour edge, then 4-hour buckets.
  assert.deepEqual(
    cover(at('2026-11-01T18:15:00Z'), at('2026-11-02T18:15:00Z')).map((c) => [
      c.grain,
      new Date(c.lo).toISOString().slice(11, 16),
      new Date(c.hi).toISOString().slice(11, 16),
    ]),
    [
      ['q', '18:15', '19:00'],
      ['h', '19:00', '20:00'],
      ['h4', '20:00', '16:00'],
      ['h', '16:00', '18:00'],
      ['q', '18:00', '18:15'],
    ],
  );
  assert.deepEqual(
    cover(at('2026-11-01T18:15:00Z'), at('2026-11-01T20:45:00Z')).map((c) => c.grain),
    ['q', 'h', 'q'],
  );
  assert.throws(() => cover(at('2026-11-01T18:10:00Z'), at('2026-11-01T20:00:00Z')), RangeError);
});

test('tile: whole buckets between the first and last quarter hour, raw spans shorter than one at the ends', () => {
  const spans = (from: string, to: string) => {
    const t = tile(instantOf(from), instantOf(to));
    return {
      buckets: t.buckets.map((c) => [c.grain, isoInstant(c.lo), isoInstant(c.hi)]),
      raw: t.raw.map((s) => [isoInstant(s.from), isoInstant(s.to)]),
    };
  };
  assert.deepEqual(spans('2026-11-23T09:47:31.000250Z', '2026-11-23T14:13:27Z'), {
    buckets: [['h', '2026-11-23T10:00:00.000Z', '2026-11-23T14:00:00.000Z']],
    raw: [
      ['2026-11-23T09:47:31.000250Z', '2026-11-23T10:00:00.000Z'],
      ['2026-11-23T14:00:00.000Z', '2026-11-23T14:13:27.000Z'],
    ],
  });
  assert.deepEqual(spans('2026-11-23T14:05:00Z', '2026-11-23T14:13:27Z'), {
    buckets: [],
    raw: [['2026-11-23T14:05:00.000Z', '2026-11-23T14:13:27.000Z']],
  });
  assert.deepEqual(spans('2026-11-23T13:59:59Z', '2026-11-23T14:15:01Z'), {
    buckets: [['q', '2026-11-23T14:00:00.000Z', '2026-11-23T14:15:00.000Z']],
    raw: [
      ['2026-11-23T13:59:59.000Z', '2026-11-23T14:00:00.000Z'],
      ['2026-11-23T14:15:00.000Z', '2026-11-23T14:15:01.000Z'],
    ],
  });
  assert.deepEqual(spans('2026-11-23T14:00:00Z', '2026-11-23T14:15:00Z'), {
    buckets: [['q', '2026-11-23T14:00:00.000Z', '2026-11-23T14:15:00.000Z']],
    raw: [],
  });
});

test('instants keep microseconds, rounded from finer fractions as PostgreSQL rounds them', () => {
  assert.equal(isoInstant(instantOf('2026-11-23T14:13:27.123456Z')), '2026-11-23T14:13:27.123456Z');
  assert.equal(isoInstant(instantOf('2026-11-23T14:13:27.1Z')), '2026-11-23T14:13:27.100Z');
  // SELECT '…00.0000015Z'::timestamptz is …00.000002, '…00.0000025Z' too (halves to even), '…00.0000005Z' …00.
  assert.equal(isoInstant(instantOf('2026-01-01T00:00:00.0000015Z')), '2026-01-01T00:00:00.000002Z');
  assert.equal(isoInstant(instantOf('2026-01-01T00:00:00.0000025Z')), '2026-01-01T00:00:00.000002Z');
  assert.equal(isoInstant(instantOf('2026-01-01T00:00:00.0000005Z')), '2026-01-01T00:00:00.000Z');
  assert.equal(isoInstant(instantOf('2026-01-01T00:00:00.9999996Z')), '2026-01-01T00:00:01.000Z');
});

test('a live window ends when its view reads, local days re-cut; an asked end never moves', () => {
  const asked = resolveWindow({ from: '2026-11-24', tz: 'Asia/Shanghai' }, 'UTC', at('2026-11-25T15:59:58Z'));
  assert.deepEqual(
    asked.days.map((d) => d.label),
    ['2026-11-24', '2026-11-25'],
  );
  // The view's snapshot is taken after local midnight: the window gains the new day.
  const live = windowAt({ ...asked, live: true }, at('2026-11-25T16:00:03Z'));
  assert.equal(isoInstant(live.to), '2026-11-25T16:00:03.000Z');
  assert.deepEqual(
    live.days.map((d) => [d.label, isoInstant(d.from), isoInstant(d.to)]),
    [
      ['2026-11-24', '2026-11-23T16:00:00.000Z', '2026-11-24T16:00:00.000Z'],
      ['2026-11-25', '2026-11-24T16:00:00.000Z', '2026-11-25T16:00:00.000Z'],
      ['2026-11-26', '2026-11-25T16:00:00.000Z', '2026-11-25T16:00:03.000Z'],
    ],
  );
  assert.equal(windowAt(asked, at('2026-11-25T16:00:03Z')), asked);
});
