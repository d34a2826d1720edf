import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser, sseFrame } from '../../src/relay/sse.ts';

test('frames survive any split, any line ending and multi-byte characters', () => {
  const text = 'event: a\r\ndata: {"x":"é"}\r\n\r\n: ping\n\ndata: [DONE]\r\rdata: l1\ndata: l2\n\n';
  const bytes = Buffer.from(text);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const p = new SseParser();
    const frames = [...p.push(bytes.subarray(0, cut)), ...p.push(bytes.subarray(cut))];
    assert.deepEqual(frames, [
      { event: 'a', data: '{"x":"é"}' },
      { event: null, data: '[DONE]' },
      { event: null, data: 'l1\nl2' },
    ], `split at ${cut}`);
  }
});

test('a frame written by sseFrame reads back as the same value', () => {
  const value = { text: 'two\nlines\r\nand "quotes"' };
  const [frame] = new SseParser().push(sseFrame('response.output_text.delta', value));
  assert.equal(frame!.event, 'response.output_text.delta');
  assert.deepEqual(JSON.parse(frame!.data), value);
});
