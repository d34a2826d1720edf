/**
 * The database's applied migrations do not match the code's: a file applied there was edited
 * since, or the database has migrations this code does not know. The message says what to do.
 */
export class MigrationMismatchError extends Error {
  override readonly name = 'MigrationMismatchError';
}
