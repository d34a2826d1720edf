/** An environment variable with a bad value; the message names it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
