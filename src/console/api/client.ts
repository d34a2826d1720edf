import createClient from 'openapi-fetch';
import { navigate } from 'wouter/use-browser-location';
import type { Problem } from './types.ts';
import type { paths } from './schema.d.ts';

/**
 * The typed client of Radar's API: paths, parameters and bodies come from the OpenAPI document
 * (schema.d.ts), so the console cannot call what the API does not serve. Same origin, so the
 * browser sends the session cookie and, on every mutation, the `Origin` the API checks.
 */
export const api = createClient<paths>({ baseUrl: '' });

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | null,
  ) {
    super(problem ? `${problem.title}: ${problem.detail}` : `HTTP ${status}`);
  }

  /** The message of the field at JSON Pointer `path`, for forms. */
  field(path: string): string | undefined {
    return this.problem?.errors?.find((e) => e.path === path)?.message;
  }
}

/** Where a 401 sends the browser: the login page, which comes back here afterwards. */
export function loginUrl(): string {
  const here = location.pathname + location.search;
  return here.startsWith('/login') ? here : `/login?next=${encodeURIComponent(here)}`;
}

api.use({
  onResponse({ response, request }) {
    // An expired or ended session: log in again and come back. Login answers 401 for a wrong
    // password, and the shell handles /me's own 401.
    const path = new URL(request.url).pathname;
    if (response.status === 401 && !path.startsWith('/api/v1/auth/') && path !== '/api/v1/me')
      navigate(loginUrl(), { replace: true });
    return response;
  },
});

/** The body of a successful answer, typed by the OpenAPI document, or an ApiError with the problem. */
export async function call<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok) throw new ApiError(response.status, (error as Problem | undefined) ?? null);
  return data as T;
}
