import { HttpError } from '../errors/http-error.ts';
import { IDENTIFIER_PATTERN } from '../ingest/schemas.ts';

/** Radar's own header naming the customer a call is made for. */
export const CUSTOMER_HEADER = 'x-radar-customer';
/** The body's fields naming the end user, in the order they are preferred. */
const BODY_FIELDS = ['safety_identifier', 'user'] as const;

/**
 * The customer a model call is made for, matched by analytics to the site's `external_user_id`:
 * the `X-Radar-Customer` header, else the body's `safety_identifier` (OpenAI's end-user id),
 * else its `user` (the older name for it). The header is Radar's own, so a value that could
 * never be an `external_user_id` is refused (400); the body fields belong to the provider's
 * protocol and may hold other ids (an e-mail hash of 200 characters), so such a value is
 * forwarded as sent and only not recorded.
 */
export function customerOf(headers: Readonly<Record<string, string>>, body: Record<string, unknown>): string | null {
  const header = headers[CUSTOMER_HEADER];
  if (header !== undefined) {
    if (!IDENTIFIER_PATTERN.test(header))
      throw new HttpError('invalid_request_error', {
        detail: `The ${CUSTOMER_HEADER} header must match ${IDENTIFIER_PATTERN.source} (an external_user_id).`,
        param: CUSTOMER_HEADER,
      });
    return header;
  }
  for (const field of BODY_FIELDS) {
    const v = body[field];
    if (typeof v === 'string' && IDENTIFIER_PATTERN.test(v)) return v;
  }
  return null;
}
