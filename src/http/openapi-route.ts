import { type Encoded, encodeBody, pickEncoding } from './compression.ts';
import { mergeHeaders } from './headers.ts';
import { openApiDocument } from './openapi.ts';
import { route, type Route } from './route.ts';

/**
 * GET /api/v1/openapi.json: the document of `routes` plus itself, built once on first use and
 * compressed once per coding (it never changes while the process runs).
 */
export function openApiRoute(routes: readonly Route[]): Route {
  let doc: string | null = null;
  const encodedDocs = new Map<string, Promise<Encoded>>();
  const self: Route = route({
    method: 'GET',
    path: '/api/v1/openapi.json',
    auth: { kind: 'public' },
    docs: { summary: 'This OpenAPI 3.1 document', tags: ['service'] },
    handler: async (ctx, app) => {
      doc ??= JSON.stringify(openApiDocument([...routes, self], app.config.PUBLIC_ORIGIN));
      const coding = pickEncoding(ctx.headers['accept-encoding']) ?? 'identity';
      let encoding = encodedDocs.get(coding);
      if (!encoding) encodedDocs.set(coding, (encoding = encodeBody(doc, coding)));
      const encoded = await encoding;
      ctx.reply.send(
        200,
        mergeHeaders(
          {
            'content-type': 'application/json; charset=utf-8',
            'x-request-id': ctx.id,
            'cache-control': 'public, max-age=300',
          },
          encoded.headers,
        ),
        encoded.body,
      );
    },
  });
  return self;
}
