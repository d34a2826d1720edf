/**
 * Radar's server SDK for Node (`import { RadarClient } from 'radar/sdk'`): typed from the
 * same zod schemas the API validates with. See README "Server SDK".
 */
export { RadarClient } from './client.ts';
export type { ClientCounters, RadarClientOptions, RecordInput, Source, UndeliveredRecord } from './client.ts';
export { BufferFullError } from './buffer-full-error.ts';
export { RecordInvalidError } from './record-invalid-error.ts';
export type { FormedBatch, Problem, SendOutcome } from './send.ts';
