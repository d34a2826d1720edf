import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readResponsesAnswer } from '../../src/geo/answer.ts';
import { extractCitations, normalizeUrl } from '../../src/geo/citations.ts';
import { readPage } from '../../src/geo/audit/html.ts';
import { parseRobots } from '../../src/geo/audit/robots.ts';
import { findMentions, type Entity } from '../../src/geo/mentions.ts';
import { assistantOf } from '../../src/geo/traffic.ts';
import { resolveWindow } from '../../src/analytics/window.ts';

const ENTITIES: Entity[] = [
  { name: 'Acme', kind: 'brand', aliases: ['Acme Writer'] },
  { name: 'Acme Pro', kind: 'competitor', aliases: [] },
  { name: 'Écrivain', kind: 'competitor', aliases: ['ecrivain.ai'] },
];

test('mentions: whole words, case-insensitive, longest name wins, first-mention order, URLs are not mentions', () => {
  assert.deepEqual(findMentions('acme pro beats ACME; Écrivain too. Acme again, acmecorp not.', ENTITIES), [
    { name: 'Acme Pro', kind: 'competitor', position: 1, count: 1 },
    { name: 'Acme', kind: 'brand', position: 2, count: 2 },
    { name: 'Écrivain', kind: 'competitor', position: 3, count: 1 },
  ]);
  assert.deepEqual(findMentions('See https://acme.example/pricing and Écrivains.', ENTITIES), []);
  assert.deepEqual(findMentions('Acme Writer, by Acme.', ENTITIES), [
    { name: 'Acme', kind: 'brand', position: 1, count: 2 },
  ]);
});

test('citations: annotations first, then URLs in the text, normalized and each once', () => {
  assert.equal(
    normalizeUrl('HTTPS://User:pw@Docs.Example:443/a/b/?utm_source=chatgpt.com&x=1&gclid=z#frag'),
    'https://docs.example/a/b?x=1',
  );
  assert.equal(normalizeUrl('http://example.com.'), 'http://example.com/');
  assert.equal(normalizeUrl('mailto:a@b.c'), null);
  assert.equal(normalizeUrl('not a url'), null);
  assert.deepEqual(
    extractCitations(
      'Read [the docs](https://docs.example/a/) and https://docs.example/a. Also <http://b.example/x?y=1>, ftp://c.example.',
      ['https://docs.example/a?utm_medium=x', 'javascript:alert(1)'],
    ),
    [
      { url: 'https://docs.example/a', domain: 'docs.example', source: 'annotation' },
      { url: 'http://b.example/x?y=1', domain: 'b.example', source: 'text' },
    ],
  );
});

test('answers: text and url_citation annotations of every message part; reasoning items skipped', () => {
  const body = {
    output: [
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'thinking about Acme' }] },
      {
        type: 'message',
        content: [
          {
            type: 'output_text',
            text: 'One.',
            annotations: [
              { type: 'url_citation', url: 'https://a.example/' },
              { type: 'file_citation', file_id: 'f' },
            ],
          },
          { type: 'refusal', refusal: 'no' },
          { type: 'output_text', text: 'Two.', annotations: [] },
        ],
      },
    ],
  };
  assert.deepEqual(readResponsesAnswer(body), { text: 'One.\n\nTwo.', annotated: ['https://a.example/'] });
  assert.throws(() => readResponsesAnswer({ choices: [] }), /no output array/);
});

test('assistants: hosts, subdomains, utm_source and bare names, whole values only', () => {
  const cases: [string | null, string | null][] = [
    ['chatgpt.com', 'chatgpt'],
    ['https://chat.openai.com/c/123', 'chatgpt'],
    ['utm_source=chatgpt.com', 'chatgpt'],
    ['?utm_source=Perplexity&utm_medium=x', 'perplexity'],
    ['www.perplexity.ai', 'perplexity'],
    ['claude.ai', 'claude'],
    ['https://gemini.google.com/app', 'gemini'],
    ['copilot.microsoft.com:443', 'copilot'],
    ['Claude', 'claude'],
    ['claude launch', null],
    ['google.com', null],
    ['notchatgpt.com', null],
    ['gemini.google.com.evil.example', null],
    ['utm_source=%E0%A4%A', null],
    ['', null],
    [null, null],
  ];
  for (const [value, expected] of cases) assert.equal(assistantOf(value), expected, String(value));
});

test('robots.txt as audits read it: the named group wins over *, the longest rule wins, allow wins a tie, * and $ patterns', () => {
  const robots = parseRobots(
    'https://a.example/robots.txt',
    [
      'User-agent: *',
      'Disallow: /',
      '',
      'User-agent: GPTBot',
      'user-agent: ccbot # two agents, one group',
      'Disallow: /private',
      'Allow: /private/press',
      'Disallow: /*.pdf$',
      '',
      'User-agent: PerplexityBot',
      'Allow: /page',
      'Disallow: /page',
      '',
      'Sitemap: https://a.example/s1.xml',
      'sitemap: /s2.xml',
    ].join('\n'),
  );
  assert.equal(robots.isAllowed('https://a.example/page', 'SomeBot'), false);
  assert.equal(robots.isAllowed('https://a.example/page', 'GPTBot'), true);
  assert.equal(robots.isAllowed('https://a.example/private/x', 'CCBot'), false);
  assert.equal(robots.isAllowed('https://a.example/private/press/1', 'gptbot'), true);
  assert.equal(robots.isAllowed('https://a.example/a/file.pdf', 'GPTBot'), false);
  assert.equal(robots.isAllowed('https://a.example/a/file.pdf?x', 'GPTBot'), true);
  assert.equal(robots.isAllowed('https://a.example/page', 'PerplexityBot'), true);
  assert.equal(
    parseRobots('https://a.example/robots.txt', 'User-agent: *\nDisallow:\n').isAllowed(
      'https://a.example/x',
      'GPTBot',
    ),
    true,
  );
  assert.deepEqual(robots.getSitemaps(), ['https://a.example/s1.xml', '/s2.xml']);
});

test('page facts: forgiving HTML, first values, JSON-LD types through @graph, hidden text not counted', () => {
  const f = readPage(`<HTML LANG="de"><title> A  title </title><svg><title>icon</title></svg>
    <meta name=description content="first"><meta name="description" content="second">
    <link rel="alternate canonical" href="https://a.example/x"><meta name="og:title" content="T">
    <script type="application/ld+json">[{"@type":"Product"},{"@graph":[{"@type":["FAQPage","Thing"]}]}]</script>
    <script type="application/ld+json">{oops}</script>
    <h1>Hi &amp; bye</h1><noscript>enable JS</noscript><p>  two   words </p>`);
  assert.deepEqual(f, {
    title: 'A title',
    metaDescription: 'first',
    canonical: 'https://a.example/x',
    openGraph: { 'og:title': 'T' },
    lang: 'de',
    h1Count: 1,
    jsonLdTypes: ['Product', 'FAQPage', 'Thing'],
    jsonLdInvalid: 1,
    textLength: 'Hi & bye two words'.length,
  });
});

test('report days are the local dates a window touches', () => {
  const daysOf = (q: { from: string; to: string; tz: string }) =>
    resolveWindow(q, 'UTC', Date.now()).days.map((d) => d.label);
  assert.deepEqual(daysOf({ from: '2026-03-28T00:00:00Z', to: '2026-03-30T00:00:00Z', tz: 'Europe/Paris' }), [
    '2026-03-28',
    '2026-03-29',
    '2026-03-30',
  ]);
  assert.deepEqual(daysOf({ from: '2026-03-28T00:00:00Z', to: '2026-03-30T00:00:00Z', tz: 'UTC' }), [
    '2026-03-28',
    '2026-03-29',
  ]);
});
