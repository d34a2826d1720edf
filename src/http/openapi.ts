import { z } from 'zod';
import { ERROR_CATALOG } from '../errors/catalog.ts';
import type { Route } from './route.ts';

type Json = Record<string, unknown>;

const PROBLEM = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', description: '`urn:radar:error:<code>`' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
    errors: {
      type: 'array',
      description: 'Every violation: `path` is a JSON Pointer into the body, `query.<name>` or `path.<name>`',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
    request_id: { type: 'string' },
  },
};

const OPENAI_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        param: { type: ['string', 'null'] },
        code: { type: 'string' },
      },
    },
  },
};

/**
 * A schema as JSON Schema of what travels on the wire: the input side, for requests (what a
 * client may send) and responses alike (the answer's schema is what checks the JSON sent).
 */
function jsonSchema(schema: z.ZodType): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
}

/**
 * Whether some path parameter can be refused (400): a path segment is never empty, so a schema
 * refusing '' checks something (a UUID), while a plain string accepts every segment.
 */
const checksParams = (r: Route) => Object.values(r.params.shape).some((s) => !(s as z.ZodType).safeParse('').success);

/** Statuses a route can answer with: from its auth, what it declares of its input, and its docs. */
function statusesOf(r: Route): number[] {
  const out = new Set<number>([...(r.docs.errors ?? [])]);
  const add = (...statuses: number[]) => {
    for (const s of statuses) out.add(s);
  };
  if (r.body) add(400, 413, 415);
  if (r.query || checksParams(r)) add(400);
  if (r.auth.kind === 'business') add(401, 403, 429, 503);
  if (r.auth.kind === 'relay') add(400, 401, 403, 404);
  return [...out].sort();
}

function titleFor(status: number): string {
  return Object.values(ERROR_CATALOG).find((e) => e.status === status)?.title ?? 'Error';
}

/**
 * The OpenAPI 3.1 document of every route the front door serves, built from the route table
 * and the same zod schemas that validate requests, so it cannot drift from behaviour.
 */
export function openApiDocument(routes: readonly Route[], serverUrl: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, '{$1}');
    const params: Json[] = Object.entries(r.params.shape).map(([name, schema]) => ({
      name,
      in: 'path',
      required: true,
      schema: jsonSchema(schema as z.ZodType),
    }));
    if (r.query) {
      const q = jsonSchema(r.query) as { properties?: Record<string, Json>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        params.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    const errorBody = r.auth.kind === 'relay' ? '#/components/schemas/OpenAIError' : '#/components/schemas/Problem';
    const errorType = r.auth.kind === 'relay' ? 'application/json' : 'application/problem+json';
    const responses: Record<string, Json> = {
      200: {
        description: 'Success',
        content: {
          'application/json': { schema: r.response ? jsonSchema(r.response) : {} },
        },
      },
    };
    for (const s of statusesOf(r)) {
      responses[s] = { description: titleFor(s), content: { [errorType]: { schema: { $ref: errorBody } } } };
    }
    const op: Json = {
      operationId: `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: r.docs.summary,
      ...(r.docs.description ? { description: r.docs.description } : {}),
      tags: [...(r.docs.tags ?? [r.path.startsWith('/v1') ? 'relay' : (r.path.split('/')[3] ?? 'service')])],
      parameters: params,
      responses,
    };
    if (r.body)
      op.requestBody = {
        required: !r.body.safeParse(undefined).success,
        content: { 'application/json': { schema: jsonSchema(r.body) } },
      };
    if (r.auth.kind === 'business') {
      op.security = r.auth.sessionOnly || r.auth.adminOnly ? [{ session: [] }] : [{ session: [] }, { credential: [] }];
      op['x-required-scopes'] = [...r.auth.scopes];
      if (r.auth.sessionOnly || r.auth.adminOnly) op['x-session-only'] = true;
      if (r.auth.adminOnly) op['x-admin-only'] = true;
    } else if (r.auth.kind === 'relay') {
      op.security = [{ relayKey: [] }];
    } else {
      op.security = [];
    }
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Radar',
      version: '1.0.0',
      description: 'Private analytics, GEO data and an OpenAI-compatible model relay for AI product websites.',
    },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { Problem: PROBLEM, OpenAIError: OPENAI_ERROR },
      securitySchemes: {
        credential: {
          type: 'http',
          scheme: 'bearer',
          description: 'A scoped credential: `rdr_read_…` or `rdr_ingest_…`',
        },
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-radar_session',
          description: 'Mutating requests also need a same-origin `Origin` header',
        },
        relayKey: { type: 'http', scheme: 'bearer', description: 'A relay key `sk-…`' },
      },
    },
  };
}
