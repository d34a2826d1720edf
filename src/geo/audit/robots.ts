interface Rule {
  allow: boolean;
  pattern: string;
  re: RegExp;
}

/**
 * robots.txt as RFC 9309 reads it: consecutive `user-agent` lines open a group; a crawler
 * obeys the groups naming its product token (case-insensitively), or the `*` groups when none
 * does; within them the longest matching path pattern wins and `allow` wins a tie. Patterns
 * may use `*` (any characters) and a final `$` (end of path).
 */
export class RobotsTxt {
  private readonly groups: { agents: string[]; rules: Rule[] }[] = [];

  constructor(text: string) {
    let current: { agents: string[]; rules: Rule[] } | null = null;
    let lastWasAgent = false;
    for (const raw of text.split(/\r?\n|\r/)) {
      const line = raw.replace(/#.*$/, '').trim();
      const m = /^([a-z-]+)\s*:\s*(.*)$/i.exec(line);
      if (!m) continue;
      const key = m[1]!.toLowerCase();
      const value = m[2]!.trim();
      if (key === 'user-agent') {
        if (!current || !lastWasAgent) this.groups.push((current = { agents: [], rules: [] }));
        current.agents.push(value.toLowerCase());
        lastWasAgent = true;
      } else if ((key === 'allow' || key === 'disallow') && current) {
        lastWasAgent = false;
        // An empty disallow allows everything: it adds no rule.
        if (value) current.rules.push({ allow: key === 'allow', pattern: value, re: toRegExp(value) });
      } else {
        lastWasAgent = false;
      }
    }
  }

  /** Whether the crawler with `token` (e.g. GPTBot) may fetch `path` (path and query). */
  isAllowed(token: string, path: string): boolean {
    const t = token.toLowerCase();
    let groups = this.groups.filter((g) => g.agents.includes(t));
    if (groups.length === 0) groups = this.groups.filter((g) => g.agents.includes('*'));
    let best: Rule | null = null;
    for (const rule of groups.flatMap((g) => g.rules)) {
      if (!rule.re.test(path)) continue;
      if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.allow)) best = rule;
    }
    return best?.allow ?? true;
  }

  /** The sitemap URLs it names, in order. */
  static sitemaps(text: string): string[] {
    return [...text.matchAll(/^\s*sitemap\s*:\s*(\S+)/gim)].map((m) => m[1]!);
  }
}

function toRegExp(pattern: string): RegExp {
  const anchored = pattern.endsWith('$');
  const body = (anchored ? pattern.slice(0, -1) : pattern)
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}${anchored ? '$' : ''}`);
}
