import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DROPPED_HEADER_MAX, droppedHeader, FieldSort } from '../../src/relay/convert/fields.ts';
import { HttpError } from '../../src/errors/http-error.ts';

test('each field is mapped, dropped or refused; null counts as absent; unknown fields are dropped', () => {
  const sort = new FieldSort('responses-to-chat', {
    model: 'm',
    input: 'x',
    store: true,
    client_metadata: { a: 1 },
    background: false,
    previous_response_id: null,
    brand_new: 1,
  });
  assert.deepEqual(sort.dropped, ['store', 'client_metadata', 'background', 'brand_new']);
  assert.throws(
    () => new FieldSort('responses-to-chat', { model: 'm', input: 'x', background: true }),
    (e: unknown) => e instanceof HttpError && e.param === 'background' && e.code === 'unsupported_parameter',
  );
  assert.throws(
    () => new FieldSort('responses-to-chat', { model: 'm', input: 'x', conversation: 'c' }),
    (e: unknown) => e instanceof HttpError && e.param === 'conversation',
  );
  // Neutral values change nothing and pass; any other value is refused.
  assert.deepEqual(
    new FieldSort('chat-to-responses', {
      model: 'm',
      messages: [],
      n: 1,
      presence_penalty: 0,
      modalities: ['text'],
      x: 1,
    }).dropped,
    ['n', 'presence_penalty', 'modalities', 'x'],
  );
  for (const [field, value] of [
    ['n', 2],
    ['presence_penalty', 0.5],
    ['seed', 1],
    ['stop', 'x'],
    ['modalities', ['text', 'audio']],
  ] as const) {
    assert.throws(
      () => new FieldSort('chat-to-responses', { model: 'm', messages: [], [field]: value }),
      (e: unknown) => e instanceof HttpError && e.param === field && /Responses provider/.test(e.message),
    );
  }
  // A name that is only a property of Object.prototype is unknown, not a rule.
  assert.deepEqual(
    new FieldSort('chat-to-responses', { model: 'm', messages: [], toString: 1, constructor: 2 }).dropped,
    ['toString', 'constructor'],
  );
});

test('the dropped-fields header: joined, encoded where a header could not carry a name, capped at a name boundary', () => {
  assert.equal(droppedHeader(['store', 'reasoning.summary', 'tools[8]']), 'store, reasoning.summary, tools[8]');
  assert.equal(droppedHeader(['a b', 'é\n', 'x,y']), 'a%20b, %C3%A9%0A, x%2Cy');
  const many = Array.from({ length: 200 }, (_, i) => `field_${i}_${'x'.repeat(20)}`);
  const value = droppedHeader(many);
  assert.ok(value.length <= DROPPED_HEADER_MAX, String(value.length));
  assert.match(value, /^field_0_x+, field_1_x+, .*field_\d+_x+, \.\.\.$/);
  assert.equal(droppedHeader(['y'.repeat(5000)]), '...');
});
