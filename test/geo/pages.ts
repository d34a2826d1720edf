import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A local web server for audits: its routes, the paths it was asked for, and its origin. */
export interface PageServer {
  origin: string;
  port: number;
  requests: string[];
  /** 'request' with the path, as each request arrives. */
  events: EventEmitter;
  close(): Promise<void>;
}

export async function startPages(routes: Record<string, Handler>, host = '127.0.0.1'): Promise<PageServer> {
  const requests: string[] = [];
  const events = new EventEmitter();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push(path);
    events.emit('request', path);
    const handler = routes[path.split('?')[0]!] ?? routes['*'];
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.listen(0, host);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    events,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export const send =
  (type: string, body: string | Buffer, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': type }).end(body);
  };
export const html = (body: string) => send('text/html; charset=utf-8', body);
export const text = (body: string) => send('text/plain; charset=utf-8', body);
export const redirect =
  (location: string, status = 301): Handler =>
  (_req, res) => {
    res.writeHead(status, { location }).end();
  };

/** A page that passes every check a plain-HTTP page can pass. */
export const GOOD_PAGE = `<!doctype html>
<html lang="en">
<head>
  <title>Acme Writer – AI writing assistant</title>
  <meta name="description" content="Acme Writer drafts, edits and polishes blog posts, emails and reports with AI, in your own voice.">
  <link rel="canonical" href="/good">
  <meta property="og:title" content="Acme Writer">
  <meta property="og:description" content="AI writing in your own voice">
  <meta property="og:image" content="https://acme.example/og.png">
  <script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Acme"},{"@type":["WebSite","Thing"],"url":"https://acme.example"}]}</script>
  <script>window.hidden = "${'x'.repeat(400)}";</script>
  <style>body { color: black; }</style>
</head>
<body>
  <h1>Acme Writer</h1>
  <svg><title>logo</title></svg>
  <p>${'Acme Writer helps teams write better. '.repeat(15)}</p>
</body>
</html>`;

export const GOOD_ROBOTS = (origin: string) => `# Radar test robots
User-agent: *
Disallow: /private/

User-agent: GPTBot
User-agent: CCBot
Disallow: /private/
Allow: /

Sitemap: ${origin}/sitemap-main.xml
`;

export const GOOD_LLMS = `# Acme Writer

> An AI writing assistant.

## Docs

- [Getting started](https://acme.example/start): how to begin
- [Pricing](https://acme.example/pricing)
`;

export const SITEMAP = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://acme.example/</loc></url>
  <url><loc>https://acme.example/good</loc></url>
  <url><loc>https://acme.example/pricing</loc></url>
</urlset>`;

/** A page that fails or warns on every check it can. */
export const POOR_PAGE = `<html>
<head>
  <meta name="description" content="Short.">
  <meta property="og:title" content="Poor">
  <script type="application/ld+json">{"@type": "Organization",}</script>
</head>
<body><h1>One</h1><h1>Two</h1><div id="root"></div><script>render()</script></body>
</html>`;
