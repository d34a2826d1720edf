import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpError } from '../../src/errors/http-error.ts';
import { parseJsonBody } from '../../src/http/json-body.ts';

const parse = (text: string) => parseJsonBody(Buffer.from(text), 'application/json');

/** The detail of the 400 a body gets, or null when it parses. */
function refusal(text: string): string | null {
  try {
    parse(text);
    return null;
  } catch (err) {
    assert.ok(err instanceof HttpError);
    assert.equal(err.code, 'invalid_json');
    return err.message;
  }
}

test('a member repeated in one object is refused and named, at any depth and however spelled', () => {
  assert.match(refusal('{"a":1,"b":2,"a":3}')!, /"a" twice/);
  assert.match(refusal('{"records":[{"id":"x"},{"id":"y","id":"z"}]}')!, /"id" twice/);
  assert.match(refusal('{"a":1,"\\u0061":2}')!, /"a" twice/);
  assert.match(refusal('{"__proto__":1,"__proto__":2}')!, /"__proto__" twice/);
});

test('equal names in different objects, and colons and quotes inside strings, are no repeat', () => {
  assert.equal(refusal('{"a":{"a":1},"b":[{"a":1},{"a":2}]}'), null);
  assert.equal(refusal('{"k:\\"x\\":":"v:\\\\","w":"::"}'), null);
  assert.equal(refusal('{"__proto__":{"x":1},"y":[]}'), null);
});

test('any nesting depth JSON.parse takes is checked without running out of stack', () => {
  const depth = 200_000;
  assert.equal(refusal(`${'['.repeat(depth)}{"a":1}${']'.repeat(depth)}`), null);
  assert.match(refusal(`${'['.repeat(depth)}{"a":1,"a":1}${']'.repeat(depth)}`)!, /"a" twice/);
});
