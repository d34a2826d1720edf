import type { AppContext } from '../app-context.ts';
import type { AbortWatch } from '../shared/abort.ts';
import { findAudit, type AuditRow } from './repo.ts';

/** The channel sql/geo/audit-finish.sql notifies on, with the audit's id. */
export const AUDIT_FINISHED_CHANNEL = 'radar_geo_audits';

/**
 * The audit once it is no longer running, or as it is after `ms` (or when `signal` aborts): a
 * POST geo/audits request waits for the worker that runs it through the front door's
 * WorkerResults. Watching starts before the row is read, so an audit that finishes in between
 * is not waited for.
 */
export async function waitForAudit(
  app: AppContext,
  auditId: string,
  ms: number,
  signal: AbortWatch,
): Promise<AuditRow> {
  const deadline = Date.now() + ms;
  const watch = app.workerResults.watch(AUDIT_FINISHED_CHANNEL, auditId);
  try {
    for (;;) {
      const row = (await findAudit(app.db, auditId))!;
      if (row.status !== 'running' || Date.now() >= deadline || signal.aborted) return row;
      await watch.next(deadline - Date.now(), signal);
    }
  } finally {
    watch.close();
  }
}
