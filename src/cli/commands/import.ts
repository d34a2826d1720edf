import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, rmSync } from 'node:fs';
import { once } from 'node:events';
import { RESOURCES, type Resource } from '../../auth/scopes.ts';
import { UsageError } from '../../errors/usage-error.ts';
import { ID_FIELD } from '../../ingest/schemas.ts';
import { RadarClient, RecordInvalidError, type RecordInput, type UndeliveredRecord } from '../../sdk/index.ts';
import { isUuid } from '../../shared/ids.ts';
import { parseFlags, required, type Command } from '../command.ts';
import { fieldKinds } from '../import/fields.ts';
import { progressDisplay } from '../import/progress.ts';
import { csvRows, fileIdentity, ndjsonRows, type InputRow } from '../import/source.ts';

const USAGE =
  'radar import --site ID --resource R [--format csv|ndjson] [--url URL] [--rejects FILE] [--import-id ID] FILE|-';

/**
 * `radar import`: a CSV or NDJSON file of one record family, sent through the SDK with
 * source `import`. Batch ids come from the file's content and each batch's position, so
 * running the same command again after an interruption replays what was stored (nothing is
 * stored twice) and sends the rest. Records refused are written with their reasons to the
 * rejects file. Prints a summary; exits 1 when records could not be delivered.
 */
export const command: Command = {
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseFlags(
      argv,
      {
        site: { type: 'string' },
        resource: { type: 'string' },
        format: { type: 'string' },
        url: { type: 'string' },
        rejects: { type: 'string' },
        'import-id': { type: 'string' },
      },
      true,
    );
    const siteId = required(values.site, 'site');
    if (!isUuid(siteId)) throw new UsageError('--site must be a site id (UUID)');
    const resource = required(values.resource, 'resource') as Resource;
    if (!RESOURCES.includes(resource)) throw new UsageError(`--resource must be one of ${RESOURCES.join(', ')}`);
    if (positionals.length !== 1) throw new UsageError(`give one FILE (or - for stdin): ${USAGE}`);
    const file = positionals[0]!;
    const format = values.format ?? (/\.csv$/i.test(file) ? 'csv' : /\.(ndjson|jsonl)$/i.test(file) ? 'ndjson' : null);
    if (format !== 'csv' && format !== 'ndjson')
      throw new UsageError('--format must be csv or ndjson (needed when the file name does not say)');
    const key = process.env.RADAR_INGEST_KEY;
    if (!key) throw new UsageError('set RADAR_INGEST_KEY to an ingest credential of the site');
    const baseUrl = values.url ?? process.env.RADAR_URL ?? 'http://127.0.0.1:8080';
    const importId = values['import-id'];
    if (importId !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(importId))
      throw new UsageError('--import-id: 1 to 64 letters, digits, _ or -');

    // stdin has no identity to derive ids from before it is read: --import-id names it.
    const identity =
      file === '-'
        ? { id: importId ?? `stdin-${randomBytes(6).toString('hex')}`, total: null }
        : await fileIdentity(file).then(
            (f) => ({
              id: importId ?? f.digest.slice(0, 24),
              total: format === 'csv' ? Math.max(0, f.lines - 1) : f.lines,
            }),
            (err: NodeJS.ErrnoException) => {
              throw new UsageError(`cannot read ${file}: ${err.code ?? err.message}`);
            },
          );
    const rejectsPath = values.rejects ?? (file === '-' ? 'radar-import-rejects.ndjson' : `${file}.rejects.ndjson`);
    const rejects = createWriteStream(rejectsPath);
    let rejectLines = 0;
    const reject = async (entry: Record<string, unknown>) => {
      rejectLines++;
      if (!rejects.write(`${JSON.stringify(entry)}\n`)) await once(rejects, 'drain');
    };

    const client = new RadarClient({
      baseUrl,
      siteId,
      key,
      source: 'import',
      // Batches at fixed positions: the nth batch of this input is always `imp-<id>-<n>`.
      flushIntervalMs: 0,
      maxBufferedRecords: 4000,
      batchId: (r, n) => `imp-${identity.id}-${r}-${n}`,
    });
    const undelivered = (r: UndeliveredRecord) =>
      void reject({
        id: r.record[ID_FIELD[resource]],
        outcome: r.outcome,
        code: r.code,
        reasons: r.reasons,
        record: r.record,
      });
    client.on('rejected', undelivered);
    client.on('failed', undelivered);

    let read = 0;
    let invalid = 0;
    const progress = progressDisplay(process.stderr, () => ({ done: read, total: identity.total }));
    const started = performance.now();
    const input = file === '-' ? process.stdin : createReadStream(file);
    const rows: AsyncGenerator<InputRow> = format === 'csv' ? csvRows(input, fieldKinds(resource)) : ndjsonRows(input);
    let counters: Awaited<ReturnType<RadarClient['shutdown']>>;
    try {
      for await (const row of rows) {
        read++;
        if ('error' in row) {
          invalid++;
          await reject({ line: row.line, outcome: 'rejected', code: 'unreadable', reasons: [row.error] });
          continue;
        }
        try {
          await client.add(resource, row.record as RecordInput<typeof resource>);
        } catch (err) {
          if (!(err instanceof RecordInvalidError)) throw err;
          invalid++;
          await reject({
            line: row.line,
            outcome: 'rejected',
            code: err.code,
            reasons: err.reasons,
            record: row.record,
          });
        }
      }
    } finally {
      counters = await client.shutdown();
      progress.stop();
      rejects.end();
      await once(rejects, 'close');
      if (!rejectLines) rmSync(rejectsPath, { force: true });
    }
    const seconds = (performance.now() - started) / 1000;
    const summary = {
      file,
      resource,
      importId: identity.id,
      read,
      stored: counters.applied,
      unchanged: counters.unchanged,
      queued: counters.queued,
      rejected: counters.rejected + invalid,
      failed: counters.failed,
      replayedBatches: counters.replays,
      retries: counters.retries,
      rejectsFile: rejectLines ? rejectsPath : null,
      seconds: Math.round(seconds * 10) / 10,
      recordsPerSecond: Math.round(read / seconds),
    };
    if (counters.failed > 0) {
      throw new Error(
        `${counters.failed} records were not delivered (see ${rejectsPath}); run the same command again to resume: ${JSON.stringify(summary)}`,
      );
    }
    return summary;
  },
};
