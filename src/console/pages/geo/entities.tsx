import type { ReactNode } from 'react';
import type { GeoConfig, GeoMention } from '../../api/types.ts';
import { mentionSpans, type Entity } from '../../../geo/mentions.ts';

/** The brand first, then the competitors, as the server finds mentions with them. */
export function entitiesOf(config: GeoConfig | null): Entity[] {
  if (!config) return [];
  return [
    { name: config.brand.name, kind: 'brand', aliases: config.brand.aliases },
    ...config.competitors.map((c) => ({ name: c.name, kind: 'competitor' as const, aliases: c.aliases })),
  ];
}

/**
 * A model's answer as text, with every brand and competitor mention marked. The string is split
 * at the spans the server counts (src/geo/mentions.ts) and each piece rendered as a text node,
 * so nothing a model wrote is ever parsed as markup.
 */
export function HighlightedAnswer({ text, entities }: { text: string; entities: readonly Entity[] }) {
  const parts: ReactNode[] = [];
  let at = 0;
  for (const s of mentionSpans(text, entities)) {
    if (s.start > at) parts.push(text.slice(at, s.start));
    const e = entities[s.entity]!;
    parts.push(
      <mark key={s.start} className={`mention mention-${e.kind}`} data-kind={e.kind}>
        {text.slice(s.start, s.end)}
        <span className="sr-only"> ({e.kind === 'brand' ? 'your brand' : `competitor ${e.name}`})</span>
      </mark>,
    );
    at = s.end;
  }
  parts.push(text.slice(at));
  return <p className="answer-text">{parts}</p>;
}

export function MentionList({ mentions }: { mentions: GeoMention[] }) {
  if (mentions.length === 0) return <span className="muted">No brand or competitor named</span>;
  return (
    <ol className="mention-list">
      {mentions.map((m) => (
        <li key={m.name} className={`mention-${m.kind}`}>
          #{m.position} {m.name}
          {m.count > 1 ? ` ×${m.count}` : ''}
        </li>
      ))}
    </ol>
  );
}
