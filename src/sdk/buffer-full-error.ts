/** add() under `whenFull: 'reject'` while the client holds its maximum of records: nothing was buffered. */
export class BufferFullError extends Error {
  override name = 'BufferFullError';
  readonly code = 'buffer_full';
  constructor(readonly limit: number) {
    super(`RadarClient holds ${limit} records already (maxBufferedRecords); the record was not buffered`);
  }
}
