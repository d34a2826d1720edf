const HOUR = 3_600_000;
const CHANNELS = ['search', 'social', 'email', 'referral', 'chatgpt.com', 'direct'];
const pick = <T>(xs: readonly T[]) => xs[Math.floor(Math.random() * xs.length)]!;

/**
 * The body of a batch of `size` visits into the current hour, what a busy site's SDK sends:
 * 50,000 users, a session per user and half hour, channels, 30% with a campaign.
 */
export function visitBatch(batchId: string, size: number): string {
  const now = Date.now();
  const hourStart = Math.floor(now / HOUR) * HOUR;
  const records = Array.from({ length: size }, (_, i) => {
    const user = Math.floor(Math.random() * 50_000);
    const r: Record<string, unknown> = {
      event_id: `${batchId}_${i}`,
      event_type: 'visit',
      source: 'client_sdk',
      occurred_at: new Date(Math.max(hourStart, now - Math.floor(Math.random() * 5000))).toISOString(),
      external_user_id: `user_${user}`,
      session_id: `sess_${user}_${Math.floor(now / 1_800_000)}`,
      properties: { channel: pick(CHANNELS) },
    };
    if (Math.random() < 0.3) r.campaign_id = `cmp_${Math.floor(Math.random() * 40)}`;
    return r;
  });
  return JSON.stringify({ schema_version: 'events.v1', batch_id: batchId, records });
}
