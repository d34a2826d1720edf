import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SseParser, sseFrame } from '../../src/relay/sse.ts';
import { UsageScanner } from '../../src/relay/usage-scan.ts';
import { noUsage } from '../../src/relay/usage.ts';

test('frames survive any split, any line ending and multi-byte characters', () => {
  const text = 'event: a\r\ndata: {"x":"é"}\r\n\r\n: ping\n\ndata: [DONE]\r\rdata: l1\ndata: l2\n\n';
  const bytes = Buffer.from(text);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const p = new SseParser();
    const frames = [...p.push(bytes.subarray(0, cut)), ...p.push(bytes.subarray(cut))];
    assert.deepEqual(
      frames,
      [
        { event: 'a', data: '{"x":"é"}' },
        { event: null, data: '[DONE]' },
        { event: null, data: 'l1\nl2' },
      ],
      `split at ${cut}`,
    );
  }
});

test('a frame written by sseFrame reads back as the same value', () => {
  const value = { text: 'two\nlines\r\nand "quotes"' };
  const [frame] = new SseParser().push(sseFrame('response.output_text.delta', value));
  assert.equal(frame!.event, 'response.output_text.delta');
  assert.deepEqual(JSON.parse(frame!.data), value);
});

test("the usage scanner finds a stream's usage object across any read boundaries, and nothing else", () => {
  const stream =
    'data: {"choices":[{"delta":{"content":"say \\"usage\\": {1} usage"}}],"type":"usage","usage":null}\n\n' +
    'data: {"choices":[],"usage" : {"prompt_tokens":3,"completion_tokens":13,"prompt_tokens_details":{"cached_tokens":2},' +
    '"completion_tokens_details":{"reasoning_tokens":8},"note":"a}b\\"c{"}}\n\ndata: [DONE]\n\n';
  const bytes = Buffer.from(stream);
  const expected = { input_tokens: 3, output_tokens: 13, cached_tokens: 2, reasoning_tokens: 8 };
  for (let a = 0; a <= bytes.length; a++) {
    for (const b of [a, a + 1, a + 5, bytes.length]) {
      if (b > bytes.length) continue;
      const usage = noUsage();
      const scanner = new UsageScanner(usage);
      for (const part of [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]) scanner.push(part);
      assert.deepEqual(usage, expected, `reads cut at ${a} and ${b}`);
      // The relay joins each read into one reused buffer: the scanner must keep copies.
      const reused = Buffer.alloc(bytes.length);
      const again = noUsage();
      const rescanner = new UsageScanner(again);
      for (const part of [bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]) {
        part.copy(reused);
        rescanner.push(reused.subarray(0, part.length));
        reused.fill('}');
      }
      assert.deepEqual(again, expected, `reads cut at ${a} and ${b}, one reused buffer`);
    }
  }
  const none = noUsage();
  new UsageScanner(none).push(Buffer.from(stream.slice(0, stream.indexOf('\n\n'))));
  assert.deepEqual(none, noUsage());
});
