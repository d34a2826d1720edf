/**
 * Every error code Radar answers with, its HTTP status and title. Codes are stable API:
 * clients branch on `code`, so a code is never renamed, only added.
 */
export const ERROR_CATALOG = {
  // 400
  invalid_json: { status: 400, title: 'Request body is not valid JSON' },
  validation_failed: { status: 400, title: 'Request does not match the schema' },
  idempotency_key_invalid: { status: 400, title: 'Idempotency-Key header missing or malformed' },
  // 401
  unauthenticated: { status: 401, title: 'Login or credential required' },
  invalid_credentials: { status: 401, title: 'Email or password is wrong' },
  // 403
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  site_forbidden: { status: 403, title: 'Site not accessible' },
  origin_mismatch: { status: 403, title: 'Origin not allowed' },
  credential_not_allowed: { status: 403, title: 'Credentials cannot perform this operation' },
  admin_required: { status: 403, title: 'Only the platform admin may do this' },
  setup_token_invalid: { status: 403, title: 'Setup link unknown, used or expired' },
  // 404 / 405
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  // 408 / 409 / 410 / 413 / 415 / 422 / 429 / 431
  request_timeout: { status: 408, title: 'Request body not received in time' },
  batch_conflict: { status: 409, title: 'Batch id reused with other records' },
  account_exists: { status: 409, title: 'An account with this email exists' },
  setup_complete: { status: 409, title: 'The platform admin exists already' },
  revision_conflict: { status: 409, title: 'Same revision with other content' },
  revision_stale: { status: 409, title: 'Revision older than the stored one' },
  audit_in_progress: { status: 409, title: 'Audit with this Idempotency-Key is still running' },
  geo_not_configured: { status: 409, title: 'GEO needs a configuration and at least one prompt first' },
  geo_prompt_limit: { status: 409, title: 'The site has as many GEO prompts as allowed' },
  export_not_ready: { status: 409, title: 'The export has no file (yet)' },
  export_expired: { status: 410, title: 'The export file was deleted after its retention time' },
  payload_too_large: { status: 413, title: 'Request body too large' },
  unsupported_media_type: { status: 415, title: 'Content-Type must be application/json' },
  semantic_invalid: { status: 422, title: 'Records are semantically invalid' },
  batch_unprocessable: { status: 422, title: 'The batch was accepted but cannot be stored' },
  idempotency_key_reused: { status: 422, title: 'Idempotency-Key reused with another body' },
  rate_limited: { status: 429, title: 'Too many requests' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  // 5xx
  internal_error: { status: 500, title: 'Internal error' },
  // Only with RESPONSE_CONTRACT_CHECK (tests): an answer did not match its route's declared response.
  response_contract_violation: { status: 500, title: 'Answer does not match the declared response' },
  service_unavailable: { status: 503, title: 'Persistence unavailable' },
  // Relay (OpenAI-shaped bodies; see src/relay)
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  model_not_permitted: { status: 403, title: 'Model not permitted for this key' },
  model_unpriced: { status: 403, title: 'Model has no price this key can be charged in' },
  insufficient_quota: { status: 429, title: 'Budget used up' },
  model_not_found: { status: 404, title: 'Model not found' },
  unknown_endpoint: { status: 404, title: 'Unknown endpoint' },
  unsupported_parameter: { status: 400, title: 'Unsupported parameter' },
  invalid_reasoning_effort: { status: 400, title: 'Invalid reasoning effort' },
  invalid_request_error: { status: 400, title: 'Invalid request' },
  upstream_error: { status: 502, title: 'Upstream provider failed' },
  previous_response_unavailable: { status: 503, title: 'The channel holding the previous response is unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;
