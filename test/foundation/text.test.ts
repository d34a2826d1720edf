import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { codePoints, httpUrl, text, unstorableValues } from '../../src/shared/text.ts';

const issues = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues.map((i) => i.message) ?? [];

test('lengths are Unicode code points: an emoji is one character, a combining mark is one more', () => {
  assert.equal(codePoints('a😀b'), 3);
  assert.equal(codePoints('e\u0301'), 2);
  assert.equal(codePoints('\ud800'), 1);
  const name = text({ min: 2, max: 160 });
  assert.deepEqual(issues(name, '😀'.repeat(160)), []);
  assert.match(issues(name, '😀'.repeat(161))[0]!, /at most 160 characters \(Unicode code points\), not 161/);
  assert.match(issues(name, '😀')[0]!, /at least 2 characters/);
  assert.deepEqual(issues(name, '\u{10ffff}\ufffe\uffff\u202e\u0301'), []);
});

test('U+0000 and unpaired surrogates are refused, naming the character; nothing else is', () => {
  const t = text({ max: 10 });
  assert.deepEqual(issues(t, 'ab\u0000'), ['must not contain U+0000 (NUL), at character 3']);
  assert.match(issues(t, '😀\ud800')[0]!, /unpaired surrogate \(U\+D800\), at character 2/);
  assert.match(issues(t, '\udfffa')[0]!, /U\+DFFF/);
  assert.match(issues(t, '\ude00\ud83d')[0]!, /U\+DE00/, 'a low surrogate before a high one is no pair');
  // Only the first broken rule is reported, so one value gets one error.
  assert.equal(issues(t, '\u0000'.repeat(20)).length, 1);
});

test('unpadded text refuses surrounding white space instead of trimming it', () => {
  const t = text({ min: 1, max: 10, unpadded: true });
  for (const v of [' a', 'a\n', '\u00a0a', 'a\u3000', ' '])
    assert.match(issues(t, v)[0]!, /white space/, JSON.stringify(v));
  assert.deepEqual(issues(t, 'a b'), []);
});

test('httpUrl: storable, bounded, absolute http(s)', () => {
  const u = httpUrl({ max: 40 });
  assert.deepEqual(issues(u, 'https://a.example/ü?q=😀'), []);
  assert.deepEqual(issues(u, 'ftp://a.example/'), ['must be an absolute http or https URL']);
  assert.deepEqual(issues(u, 'https://a.example/\u0000'), ['must not contain U+0000 (NUL), at character 19']);
  assert.match(issues(u, `https://a.example/${'a'.repeat(40)}`)[0]!, /at most 40/);
});

test('the docs carry the limits in code points as JSON Schema minLength/maxLength', () => {
  const schema = z.toJSONSchema(z.object({ n: text({ min: 2, max: 160 }), u: httpUrl({ max: 2048 }) })) as {
    properties: Record<string, unknown>;
  };
  assert.deepEqual(schema.properties.n, { type: 'string', minLength: 2, maxLength: 160 });
  assert.deepEqual(schema.properties.u, { type: 'string', minLength: 1, maxLength: 2048, format: 'uri' });
});

test('unstorableValues walks nested JSON, member names included', () => {
  assert.deepEqual(
    unstorableValues({ a: ['ok', 'x\u0000'], b: { 'k\ud800': 1, c: { d: '\udc00' } }, n: 1, z: null }).map(
      (e) => e.path,
    ),
    [
      ['a', 1],
      ['b', 'k\ud800'],
      ['b', 'c', 'd'],
    ],
  );
  assert.deepEqual(unstorableValues([{ ok: '😀\ufffe' }]), []);
});
