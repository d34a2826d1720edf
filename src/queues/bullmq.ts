import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';

// BullMQ's index loads everything it has: workers, flows, the job scheduler (cron-parser and
// luxon), its Postgres backend and clients for four Redis libraries. A front door only adds
// jobs, so it loads the two classes it uses from their own files: ~3 MB less heap and ~8 MB
// less resident memory at idle. BullMQ has no exports map; a move of these files fails every
// test that starts a front door. Workers import 'bullmq' itself: the same CommonJS modules,
// so `instanceof UnrecoverableError` holds across both.
const require = createRequire(import.meta.url);

export const { Queue } = require('bullmq/dist/cjs/classes/queue.js') as Pick<typeof BullMQ, 'Queue'>;
export const { UnrecoverableError } = require('bullmq/dist/cjs/classes/errors/unrecoverable-error.js') as Pick<
  typeof BullMQ,
  'UnrecoverableError'
>;
export type Queue = BullMQ.Queue;
export type UnrecoverableError = BullMQ.UnrecoverableError;
