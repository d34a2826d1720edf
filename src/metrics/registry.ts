import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { AppContext } from '../app-context.ts';
import { readRejectedBatches } from './batch-rejections.ts';
import { JOB_BUCKETS, readJobDurations } from './job-durations.ts';

/**
 * The front door's Prometheus metrics. Counters and histograms are updated on the request
 * path; queue, pool and job-duration figures are read when Prometheus scrapes.
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: 'radar_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'radar_http_request_duration_seconds',
    help: 'Time from request to the end of the answer, by route pattern and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [this.registry],
  });

  readonly relayTokens = new Counter({
    name: 'radar_relay_tokens_total',
    help: 'Tokens relayed, by model and direction (input or output)',
    labelNames: ['model', 'direction'] as const,
    registers: [this.registry],
  });

  readonly relayTtfb = new Histogram({
    name: 'radar_relay_time_to_first_byte_seconds',
    help: 'Time from a relay request to the first upstream byte, by model',
    labelNames: ['model'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  /** Starts the scrape-time collectors; `queueNames` are the queues to report on. */
  collectFrom(app: AppContext, queueNames: readonly string[]): void {
    const { registry } = this;
    new Gauge({
      name: 'radar_queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, failed, completed)',
      labelNames: ['queue', 'state'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        await Promise.all(
          queueNames.map(async (name) => {
            const counts = await app.queues
              .get(name)
              .getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
            for (const [state, n] of Object.entries(counts)) this.set({ queue: name, state }, n);
          }),
        );
      },
    });
    new Gauge({
      name: 'radar_pg_pool_connections',
      help: 'PostgreSQL pool of this front door: total, idle and waiting clients',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const pool = app.db.$pool;
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
    new Counter({
      name: 'radar_ingest_batches_rejected_total',
      help: 'Ingest batches the workers rejected, by problem code (batch_unprocessable: PostgreSQL could not store them)',
      labelNames: ['code'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        for (const [code, n] of await readRejectedBatches(app.redis, app.config.QUEUE_PREFIX)) this.inc({ code }, n);
      },
    });
    // A histogram assembled from the Redis counters every worker writes (job-durations.ts).
    const jobDurations = {
      name: 'radar_job_duration_seconds',
      help: 'Job processing time across all workers, by queue and outcome',
      type: 'histogram',
      aggregator: 'sum',
      async get() {
        const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
        for (const queue of queueNames) {
          for (const status of ['completed', 'failed'] as const) {
            const snap = await readJobDurations(app.redis, app.config.QUEUE_PREFIX, queue, status);
            let cumulative = 0;
            for (const le of JOB_BUCKETS) {
              cumulative += snap.buckets.get(le) ?? 0;
              values.push({
                metricName: 'radar_job_duration_seconds_bucket',
                labels: { queue, status, le },
                value: cumulative,
              });
            }
            values.push({
              metricName: 'radar_job_duration_seconds_bucket',
              labels: { queue, status, le: '+Inf' },
              value: snap.count,
            });
            values.push({ metricName: 'radar_job_duration_seconds_sum', labels: { queue, status }, value: snap.sum });
            values.push({
              metricName: 'radar_job_duration_seconds_count',
              labels: { queue, status },
              value: snap.count,
            });
          }
        }
        return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
      },
      reset() {},
    };
    registry.registerMetric(jobDurations as unknown as Metric);
  }
}
