/** PostgreSQL's SQLSTATE of an error thrown by pg, when it has one. */
function sqlState(err: unknown): string | undefined {
  return (err as { code?: string } | null)?.code;
}

/** 23505: a unique index refused the row (a name or email already taken, a lost insert race). */
export const isUniqueViolation = (err: unknown): boolean => sqlState(err) === '23505';

/** 23503: the row names something that does not exist (a group, an account). */
export const isForeignKeyViolation = (err: unknown): boolean => sqlState(err) === '23503';
