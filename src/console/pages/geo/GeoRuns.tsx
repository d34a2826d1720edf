import { useEffect, useState } from 'react';
import { api, type ApiError, call } from '../../api/client.ts';
import type { GeoAnswer, GeoCitedUrl, GeoConfig, GeoRun, Paged, RunStatus } from '../../api/types.ts';
import { ErrorNote, ExternalLink, Loading } from '../../ui/bits.tsx';
import { dateTime } from '../../ui/format.ts';
import { useLoad } from '../../ui/use-load.ts';
import { useQuery } from '../../ui/use-query.ts';
import { entitiesOf, HighlightedAnswer, MentionList } from './entities.tsx';
import { NotConfigured } from './NotConfigured.tsx';

const ANSWERS_PAGE = 20;
const RUN_TEXT: Record<RunStatus, string> = {
  queued: 'Queued',
  running: 'Running',
  succeeded: 'Succeeded',
  partial: 'Partly answered',
  failed: 'Failed',
};
const finished = (s: RunStatus) => s !== 'queued' && s !== 'running';
/** How often the list is re-read while a run is in progress (a person watching it). */
const PROGRESS_EVERY_MS = 1500;

function RunsTable({ runs, shown, onShow }: { runs: GeoRun[]; shown: string | null; onShow: (id: string) => void }) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <caption>Runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Trigger</th>
            <th scope="col">Status</th>
            <th scope="col" className="num">
              Answers
            </th>
            <th scope="col">Models</th>
            <th scope="col">
              <span className="sr-only">Show</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.id} aria-current={shown === r.id ? 'true' : undefined}>
              <td>{dateTime(r.created_at)}</td>
              <td>{r.trigger === 'manual' ? 'Run now' : `Schedule (${dateTime(r.scheduled_for)})`}</td>
              <td>
                <span className={`badge badge-run-${r.status}`}>{RUN_TEXT[r.status]}</span>
                {r.error && <span className="small"> {r.error}</span>}
              </td>
              <td className="num">
                {r.answers.succeeded} of {r.answers.total}
                {r.answers.failed > 0 && `, ${r.answers.failed} failed`}
                {r.answers.pending > 0 && `, ${r.answers.pending} pending`}
              </td>
              <td className="small">{r.models.join(', ')}</td>
              <td>
                <button
                  type="button"
                  className="link-button"
                  onClick={() => onShow(r.id)}
                  aria-label={`Show answers of the run of ${dateTime(r.created_at)}`}
                >
                  Answers
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AnswerCard({ a, config }: { a: GeoAnswer; config: GeoConfig | null }) {
  return (
    <article className="card answer" aria-label={`${a.model}: ${a.prompt}`}>
      <p className="answer-head">
        <strong>{a.prompt}</strong> <span className="muted small">· {a.model}</span>
      </p>
      {a.status === 'succeeded' && a.text !== null ? (
        <HighlightedAnswer text={a.text} entities={entitiesOf(config)} />
      ) : a.status === 'failed' ? (
        <p className="error">The model did not answer: {a.error}</p>
      ) : (
        <p className="muted">Waiting for the model…</p>
      )}
      {a.status === 'succeeded' && (
        <div className="answer-facts small">
          <span>Named: </span>
          <MentionList mentions={a.mentions} />
          {a.citations.length > 0 && (
            <>
              <span>Cites:</span>
              <ul className="citation-list">
                {a.citations.map((c) => (
                  <li key={c.url}>
                    <ExternalLink url={c.url} />
                    {c.own_domain && <span className="badge badge-approved">your site</span>}
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
    </article>
  );
}

/** `progress` changes while the run answers, so the list follows it. */
function Citations({ siteId, runId, progress }: { siteId: string; runId: string | undefined; progress: string }) {
  const cited = useLoad(
    () =>
      call<Paged<GeoCitedUrl>>(
        api.GET('/api/v1/sites/{siteId}/geo/citations', {
          params: { path: { siteId }, query: { run_id: runId, limit: '50' } },
        }),
      ),
    `${siteId}/${runId}/${progress}`,
  );
  return (
    <section aria-labelledby="citations-title">
      <h3 id="citations-title">Cited pages{runId ? ' in this run' : ''}</h3>
      <ErrorNote error={cited.error} />
      {cited.loading && !cited.data && <Loading what="citations" />}
      {cited.data &&
        (cited.data.data.length === 0 ? (
          <p className="muted">No answer cited a URL.</p>
        ) : (
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption className="sr-only">Cited URLs, most cited first</caption>
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col" className="num">
                    Answers
                  </th>
                  <th scope="col">Models</th>
                  <th scope="col">Last cited</th>
                </tr>
              </thead>
              <tbody>
                {cited.data.data.map((c) => (
                  <tr key={c.url}>
                    <td>
                      <ExternalLink url={c.url} />
                      {c.own_domain && <span className="badge badge-approved">your site</span>}
                    </td>
                    <td className="num">{c.answers}</td>
                    <td className="small">{c.models.join(', ')}</td>
                    <td>{dateTime(c.last_cited_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </section>
  );
}

export function GeoRuns({ siteId, config }: { siteId: string; config: GeoConfig | null }) {
  const { q, set } = useQuery();
  const shown = q.get('run');
  const offset = Number(q.get('offset') ?? 0) || 0;
  const runs = useLoad(
    () =>
      call<Paged<GeoRun>>(
        api.GET('/api/v1/sites/{siteId}/geo/runs', { params: { path: { siteId }, query: { limit: '20' } } }),
      ),
    siteId,
  );
  const latest = runs.data?.data[0];
  const runId = shown ?? latest?.id;
  const shownRun = runs.data?.data.find((r) => r.id === runId);
  const progress = `${shownRun?.status}/${shownRun?.answers.pending}`;
  const answers = useLoad(
    () =>
      runId
        ? call<Paged<GeoAnswer>>(
            api.GET('/api/v1/sites/{siteId}/geo/answers', {
              params: {
                path: { siteId },
                query: { run_id: runId, limit: String(ANSWERS_PAGE), offset: String(offset) },
              },
            }),
          )
        : Promise.resolve(null),
    `${runId}/${offset}/${progress}`,
  );
  const { reload, data: runList } = runs;
  useEffect(() => {
    if (!runList?.data.some((r) => !finished(r.status))) return;
    const t = setTimeout(reload, PROGRESS_EVERY_MS);
    return () => clearTimeout(t);
  }, [runList, reload]);
  const [error, setError] = useState<ApiError | null>(null);
  const [starting, setStarting] = useState(false);
  const runNow = async () => {
    setError(null);
    setStarting(true);
    try {
      const run = await call<GeoRun>(
        api.POST('/api/v1/sites/{siteId}/geo/runs', { params: { path: { siteId } }, body: {} }),
      );
      set({ run: run.id, offset: null });
      reload();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setStarting(false);
    }
  };
  if (!config) return <NotConfigured siteId={siteId} />;
  const page = answers.data?.pagination;
  return (
    <>
      <div className="title-row">
        <h3>Runs</h3>
        <button type="button" onClick={runNow} disabled={starting}>
          Run now
        </button>
      </div>
      <p className="muted small">
        A run asks every prompt of {config.models.join(', ')}.{' '}
        {config.schedule
          ? `Scheduled: ${config.schedule.cron} (${config.schedule.tz ?? 'server time'}).`
          : 'No schedule.'}
      </p>
      <ErrorNote error={error ?? runs.error} />
      {runs.loading && !runs.data && <Loading what="runs" />}
      {runs.data &&
        (runs.data.data.length === 0 ? (
          <p>No runs yet. Run now to ask the models.</p>
        ) : (
          <RunsTable runs={runs.data.data} shown={runId ?? null} onShow={(id) => set({ run: id, offset: null })} />
        ))}
      {runId && (
        <section aria-labelledby="answers-title">
          <h3 id="answers-title">Answers of the run of {dateTime(shownRun?.created_at)}</h3>
          <p className="small legend">
            <mark className="mention mention-brand">Your brand</mark>{' '}
            <mark className="mention mention-competitor">Competitors</mark> are marked where the answer names them.
          </p>
          <ErrorNote error={answers.error} />
          {answers.loading && !answers.data && <Loading what="answers" />}
          {answers.data?.data.map((a) => (
            <AnswerCard key={a.id} a={a} config={config} />
          ))}
          {page && page.total > ANSWERS_PAGE && (
            <div className="pager">
              <button
                type="button"
                className="secondary"
                disabled={offset === 0}
                onClick={() => set({ offset: String(Math.max(0, offset - ANSWERS_PAGE)) })}
              >
                Previous
              </button>
              <span>
                Answers {offset + 1}–{offset + answers.data!.data.length} of {page.total}
              </span>
              <button
                type="button"
                className="secondary"
                disabled={page.next_offset === null}
                onClick={() => set({ offset: String(page.next_offset) })}
              >
                Next
              </button>
            </div>
          )}
          <Citations siteId={siteId} runId={runId} progress={progress} />
        </section>
      )}
    </>
  );
}
