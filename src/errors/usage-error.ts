/** A `radar` command line the user can fix; printed as one line on stderr without a stack. */
export class UsageError extends Error {
  override name = 'UsageError';
}
