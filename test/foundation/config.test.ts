import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../config/env.ts';
import { ConfigError } from '../../src/errors/config-error.ts';

test('defaults follow CONTRACT §1', () => {
  const c = parseConfig({});
  assert.equal(c.DATABASE_URL, 'postgres://postgres@127.0.0.1:5432/radar');
  assert.equal(c.REDIS_URL, 'redis://127.0.0.1:6379');
  assert.equal(c.HOST, '127.0.0.1');
  assert.equal(c.PORT, 8080);
  assert.equal(c.PUBLIC_ORIGIN, 'http://127.0.0.1:8080');
  assert.equal(c.RADAR_TZ, 'Asia/Shanghai');
  assert.equal(c.INGEST_SYNC_WAIT_MS, 10000);
  assert.equal(c.GEO_AUDIT_ALLOW_PRIVATE_HOSTS, false);
});

test('values are typed: numbers are numbers, flags are booleans, empty means unset', () => {
  const c = parseConfig({
    PORT: '9000',
    GEO_AUDIT_ALLOW_PRIVATE_HOSTS: '1',
    LOG_LEVEL: '',
    PUBLIC_ORIGIN: 'https://radar.example.com/',
  });
  assert.equal(c.PORT, 9000);
  assert.equal(c.GEO_AUDIT_ALLOW_PRIVATE_HOSTS, true);
  assert.equal(c.LOG_LEVEL, 'info');
  assert.equal(c.PUBLIC_ORIGIN, 'https://radar.example.com');
});

test('a bad value is refused with the variable named', () => {
  for (const [name, value] of [
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['RADAR_TZ', 'Mars/Olympus'],
    ['DATABASE_URL', 'mysql://x'],
    ['GEO_AUDIT_ALLOW_PRIVATE_HOSTS', 'yes'],
    ['INGEST_SYNC_WAIT_MS', '-1'],
    ['LOG_LEVEL', 'loud'],
  ] as const) {
    assert.throws(
      () => parseConfig({ [name]: value }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.match(err.message, new RegExp(`${name}:`));
        return true;
      },
      `${name}=${value}`,
    );
  }
});
