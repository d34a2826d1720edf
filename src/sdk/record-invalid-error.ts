import type { z } from 'zod';
import type { Resource } from '../auth/scopes.ts';

/** add() of a record the API's schema refuses: the same check the server makes, so nothing is sent. */
export class RecordInvalidError extends Error {
  override name = 'RecordInvalidError';
  readonly code = 'validation_failed';
  /** Each violation with its JSON Pointer inside the record, as the API would list it. */
  readonly reasons: string[];
  constructor(
    readonly resource: Resource,
    error: z.ZodError,
  ) {
    const reasons = error.issues.map((i) => `/${i.path.join('/')}: ${i.message}`);
    super(`invalid ${resource} record: ${reasons.join('; ')}`);
    this.reasons = reasons;
  }
}
