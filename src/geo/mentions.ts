import { URL_IN_TEXT } from './citations.ts';

/** A brand or competitor as configured: its name and the other names it goes by. */
export interface Entity {
  name: string;
  kind: 'brand' | 'competitor';
  aliases: readonly string[];
}

/** One entity named in an answer; `position` 1 is the entity named first. */
export interface Mention {
  name: string;
  kind: 'brand' | 'competitor';
  position: number;
  /** How many times any of its names occurs. */
  count: number;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where one entity is named in an answer: `text.slice(start, end)`, `entity` its index. */
export interface MentionSpan {
  start: number;
  end: number;
  entity: number;
}

/**
 * Every place an answer names an entity, in text order and never overlapping. Names match
 * case-insensitively as whole words (a letter or digit on either side is another word: "Acme"
 * is not in "Acmecorp"). Where names overlap ("Acme" inside "Acme Pro"), the longer one wins,
 * so a competitor whose name extends the brand's is not counted as the brand too. A name inside
 * a URL (https://acme.example/…) is a citation, not a mention, and is not counted. The console
 * highlights answers with these spans, so what it marks is what was counted.
 */
export function mentionSpans(answer: string, entities: readonly Entity[]): MentionSpan[] {
  const text = answer.replace(URL_IN_TEXT, (url) => ' '.repeat(url.length));
  const hits: MentionSpan[] = [];
  entities.forEach((e, entity) => {
    const names = [e.name, ...e.aliases].sort((a, b) => b.length - a.length).map(escapeRegExp);
    const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${names.join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
    for (const m of text.matchAll(re)) hits.push({ start: m.index, end: m.index + m[0].length, entity });
  });
  hits.sort((a, b) => a.start - b.start || b.end - a.end);
  let reached = 0;
  return hits.filter((h) => {
    if (h.start < reached) return false;
    reached = h.end;
    return true;
  });
}

/** The entities an answer names (see mentionSpans), in first-mention order. */
export function findMentions(answer: string, entities: readonly Entity[]): Mention[] {
  const first = new Map<number, number>();
  const count = new Map<number, number>();
  for (const h of mentionSpans(answer, entities)) {
    if (!first.has(h.entity)) first.set(h.entity, h.start);
    count.set(h.entity, (count.get(h.entity) ?? 0) + 1);
  }
  return [...first.entries()]
    .sort((a, b) => a[1] - b[1])
    .map(([i], k) => ({ name: entities[i]!.name, kind: entities[i]!.kind, position: k + 1, count: count.get(i)! }));
}
