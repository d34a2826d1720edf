export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** A session token, sent as the __Host-radar_session cookie with a matching Origin. */
  session?: string;
  /** A credential or relay key, sent as a Bearer token. */
  bearer?: string;
  /** Override or drop (null) the Origin sent with a session. */
  origin?: string | null;
}

/** One HTTP call to a test front door; the body is parsed as JSON when it is JSON. */
export async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.session) {
    headers.cookie = `__Host-radar_session=${opts.session}`;
    if (opts.origin !== null) headers.origin = opts.origin ?? base;
  }
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  let body: string | Buffer | undefined = opts.raw;
  if (body === undefined && opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body: body as BodyInit | undefined });
  const text = await res.text();
  let parsed: unknown = text;
  if (/json/.test(res.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, body: parsed, text };
}
