import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Abort } from '../../src/shared/abort.ts';

test('an abort calls each listener once, with an AbortError as the reason', () => {
  const abort = new Abort();
  const calls: string[] = [];
  abort.addEventListener('abort', () => calls.push('a'));
  abort.addEventListener('abort', () => calls.push('b'));
  assert.deepEqual([new Abort().aborted, new Abort().reason], [false, undefined]);
  abort.abort();
  abort.abort();
  assert.deepEqual(calls, ['a', 'b']);
  assert.equal(abort.aborted, true);
  assert.equal(abort.reason?.name, 'AbortError');
});

test('a removed listener is not called, and one added after the abort never is', () => {
  const abort = new Abort();
  const calls: string[] = [];
  const gone = () => calls.push('gone');
  abort.addEventListener('abort', gone);
  abort.addEventListener('abort', () => calls.push('kept'));
  abort.removeEventListener('abort', gone);
  abort.abort(new Error('shutting down'));
  abort.addEventListener('abort', () => calls.push('late'));
  assert.deepEqual(calls, ['kept']);
  assert.equal(abort.reason?.message, 'shutting down');
});
