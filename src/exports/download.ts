import type { AppContext } from '../app-context.ts';
import type { RequestContext } from '../http/context.ts';
import { mergeHeaders } from '../http/headers.ts';
import { readChunk } from './repo.ts';
import type { ExportRow } from './schemas.ts';

const CONTENT_TYPE = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' } as const;

/** The download's file name: what, which site, when asked, which export. */
function fileName(row: ExportRow): string {
  const what = row.request.kind === 'records' ? row.request.resource : `analytics-${row.request.view}`;
  const day = row.created_at.toISOString().slice(0, 10);
  return `radar-${what}-${day}-${row.id.slice(0, 8)}.${row.request.format}`;
}

/**
 * Streams a completed export's file chunk by chunk: the next chunk is read from PostgreSQL
 * only once the socket took the last one (`drain`), so a slow client holds at most about one
 * chunk of memory, whatever the file's size. A file cut short (it expired mid-download) ends
 * in a broken connection, never in a silently truncated answer.
 */
export async function streamExport(
  ctx: Pick<RequestContext, 'reply' | 'responseHeaders' | 'id' | 'log'>,
  app: AppContext,
  row: ExportRow,
): Promise<void> {
  const { reply } = ctx;
  reply.beginStream(
    200,
    mergeHeaders(ctx.responseHeaders, {
      'content-type': CONTENT_TYPE[row.request.format],
      'content-disposition': `attachment; filename="${fileName(row)}"`,
      'cache-control': 'private, no-store',
      'x-request-id': ctx.id,
    }),
  );
  let sent = 0;
  for (let seq = 0; ; seq++) {
    const chunk = await readChunk(app.db, row.id, seq);
    if (!chunk) break;
    sent += chunk.length;
    if (!reply.push(chunk) && !(await reply.drain())) return;
  }
  if (sent !== Number(row.bytes)) {
    ctx.log.warn({ exportId: row.id, sent, bytes: Number(row.bytes) }, 'export file incomplete; connection cut');
    reply.abort();
    return;
  }
  reply.end();
}
