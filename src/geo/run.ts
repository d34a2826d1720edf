import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import { findSite } from '../sites/repo.ts';
import type { ModelAsker } from './ask.ts';
import { bareDomain, extractCitations, isOwnDomain } from './citations.ts';
import { findMentions, type Entity } from './mentions.ts';
import {
  allPrompts,
  failAnswer,
  findConfig,
  findRun,
  finishRun,
  pendingAnswers,
  startRun,
  storeAnswer,
  type ConfigRow,
  type RunStatus,
} from './repo.ts';

export interface RunDeps {
  db: Db;
  log: Logger;
  asker: ModelAsker;
}

/** The brand first, then the competitors, as findMentions takes them. */
export function entitiesOf(c: Pick<ConfigRow, 'brand_name' | 'brand_aliases' | 'competitors'>): Entity[] {
  return [
    { name: c.brand_name, kind: 'brand', aliases: c.brand_aliases },
    ...c.competitors.map((x) => ({ name: x.name, kind: 'competitor' as const, aliases: x.aliases })),
  ];
}

/**
 * Executes a run: asks every pending (prompt, model) of it, stores each answer with its
 * mentions and citations, then sets the run's status from its answers. A model call that fails
 * fails its answer only, and the run ends partial. Safe to repeat: a retried job asks only what
 * is still pending. When the asker is shutting down, the answers it could not get stay pending
 * and the error is rethrown, so BullMQ retries the job instead of recording a false failure.
 */
export async function executeRun(
  deps: RunDeps,
  runId: string,
): Promise<{ status: RunStatus; succeeded: number; failed: number; total: number } | null> {
  const { db, log, asker } = deps;
  const head = await findRun(db, runId);
  if (!head || (head.status !== 'queued' && head.status !== 'running')) return null;
  const [config, site, prompts] = await Promise.all([
    findConfig(db, head.site_id),
    findSite(db, head.site_id),
    allPrompts(db, head.site_id),
  ]);
  if (!config || !site || prompts.length === 0) {
    await startRun(db, runId, []);
    return finishRun(db, runId, !config ? 'the site has no GEO configuration' : 'the site has no prompts');
  }
  await startRun(db, runId, prompts);

  const entities = entitiesOf(config);
  const siteDomain = bareDomain(new URL(site.website_url).hostname);
  const ownDomain = (d: string) => isOwnDomain(d, siteDomain);
  let interrupted: unknown = null;
  await Promise.all(
    (await pendingAnswers(db, runId)).map(async (a) => {
      try {
        const asked = await asker.ask(a.model, a.prompt, config.locale);
        await storeAnswer(db, a.id, head.site_id, {
          text: asked.text,
          channelId: asked.channelId,
          mentions: findMentions(asked.text, entities),
          citations: extractCitations(asked.text, asked.annotated),
          ownDomain,
          inputTokens: asked.usage.input_tokens,
          outputTokens: asked.usage.output_tokens,
        });
      } catch (err) {
        if (asker.closed) {
          interrupted = err;
          return;
        }
        log.warn({ runId, model: a.model, err }, 'GEO answer failed');
        await failAnswer(db, a.id, (err as Error).message);
      }
    }),
  );
  if (interrupted) throw interrupted;
  return finishRun(db, runId, null);
}
