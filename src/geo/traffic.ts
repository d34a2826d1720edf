/**
 * The AI assistants whose referrals `traffic` counts, by the hosts they link from and the
 * `utm_source` names they (or sites' own tagging) use.
 */
export const AI_ASSISTANTS = [
  { id: 'chatgpt', domains: ['chatgpt.com', 'chat.openai.com'], names: ['chatgpt'] },
  { id: 'perplexity', domains: ['perplexity.ai'], names: ['perplexity'] },
  { id: 'claude', domains: ['claude.ai'], names: ['claude'] },
  { id: 'gemini', domains: ['gemini.google.com', 'bard.google.com'], names: ['gemini'] },
  { id: 'copilot', domains: ['copilot.microsoft.com'], names: ['copilot'] },
  { id: 'deepseek', domains: ['chat.deepseek.com'], names: ['deepseek'] },
  // Others that link to the sites they cite; the Chinese ones matter to sites Radar serves.
  { id: 'grok', domains: ['grok.com'], names: ['grok'] },
  { id: 'meta_ai', domains: ['meta.ai'], names: ['meta ai'] },
  { id: 'mistral', domains: ['chat.mistral.ai'], names: ['le chat', 'lechat', 'mistral'] },
  { id: 'kimi', domains: ['kimi.com', 'kimi.moonshot.cn'], names: ['kimi'] },
  { id: 'doubao', domains: ['doubao.com'], names: ['doubao'] },
  { id: 'qwen', domains: ['chat.qwen.ai', 'tongyi.aliyun.com', 'qianwen.aliyun.com'], names: ['qwen', 'tongyi'] },
  { id: 'yuanbao', domains: ['yuanbao.tencent.com'], names: ['yuanbao'] },
] as const;

export type AssistantId = (typeof AI_ASSISTANTS)[number]['id'];

/**
 * The assistant a source value names, or null. A value is read as a referrer URL
 * (`https://chatgpt.com/…`), a query with `utm_source=…`, a host (`www.perplexity.ai`) or a
 * bare name (`claude`); it names an assistant when, lower-cased and without `www.`, it is one
 * of its hosts (or a subdomain of one) or exactly one of its names. Whole values only:
 * "claude launch" is a campaign name, not Claude.
 */
export function assistantOf(value: string | null): AssistantId | null {
  if (!value) return null;
  let v = value.trim().toLowerCase();
  const utm = /(?:^|[?&])utm_source=([^&#]+)/.exec(v);
  if (utm) v = decoded(utm[1]!.replace(/\+/g, ' ')).trim();
  v = v
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/^www\./, '')
    .replace(/\.$/, '');
  for (const a of AI_ASSISTANTS) {
    if (a.domains.some((d) => v === d || v.endsWith(`.${d}`)) || (a.names as readonly string[]).includes(v))
      return a.id;
  }
  return null;
}

/** The assistant behind a visit: its channel first, then its campaign's id, then that campaign's name. */
export function visitAssistant(v: {
  channel: string | null;
  campaign_id: string | null;
  campaign_name: string | null;
}): AssistantId | null {
  return assistantOf(v.channel) ?? assistantOf(v.campaign_id) ?? assistantOf(v.campaign_name);
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
