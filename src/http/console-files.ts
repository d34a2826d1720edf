import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { PACKAGE_ROOT } from '../shared/package-root.ts';
import { pickEncoding } from './compression.ts';

/** Where `npm install` (the `prepare` script) builds the console. */
export const CONSOLE_DIR = join(PACKAGE_ROOT, 'dist', 'console') + sep;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/**
 * No inline script anywhere, and no inline style but the <style> elements the build put in
 * index.html, each allowed by its hash: everything else the console runs or styles with comes
 * from its own files, and it talks only to its own origin. uPlot and React set styles through
 * the CSSOM, which `style-src` does not restrict.
 */
function securityHeaders(indexHtml: string): Record<string, string> {
  const styles = [...indexHtml.matchAll(/<style>([\s\S]*?)<\/style>/g)].map(
    (m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`,
  );
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    ["style-src 'self'", ...styles].join(' '),
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  };
}

interface File {
  type: string;
  cacheControl: string;
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
}

export interface ConsoleAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The built console, held in memory: files under `assets/` carry a content hash in their name
 * and are cached for a year; every other path that is not a file is the single-page app's
 * index.html, revalidated on each load so a deploy is picked up at once. The build writes
 * `.br` and `.gz` siblings so nothing is compressed while serving.
 */
export class ConsoleFiles {
  private files: Map<string, File> | null = null;
  private security: Record<string, string> = {};

  constructor(private readonly dir: string = CONSOLE_DIR) {}

  /** Whether a build exists to serve. */
  get built(): boolean {
    return existsSync(join(this.dir, 'index.html'));
  }

  /** The answer to GET `path`, or null when the console has no such file (a 404). */
  answer(path: string, acceptEncoding: string | undefined): ConsoleAnswer | null {
    const files = (this.files ??= this.load());
    let file = files.get(path);
    // A path without an extension is one of the app's own routes (/sites/…, /login).
    if (!file && !extname(path)) file = files.get('/index.html');
    if (!file) return null;
    const coding = pickEncoding(acceptEncoding);
    const precompressed = coding ? file[coding] : undefined;
    const [body, encoding] = precompressed ? [precompressed, coding] : [file.identity, null];
    const headers: Record<string, string> = {
      'content-type': file.type,
      'cache-control': file.cacheControl,
      vary: 'accept-encoding',
      ...this.security,
    };
    if (encoding) headers['content-encoding'] = encoding;
    return { status: 200, headers, body };
  }

  private load(): Map<string, File> {
    const files = new Map<string, File>();
    if (!this.built) return files;
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) {
          walk(full);
          continue;
        }
        if (/\.(br|gz)$/.test(entry.name)) continue;
        const url = `/${relative(this.dir, full).split(sep).join('/')}`;
        const read = (suffix: string) => (existsSync(full + suffix) ? readFileSync(full + suffix) : undefined);
        files.set(url, {
          type: TYPES[extname(entry.name)] ?? 'application/octet-stream',
          cacheControl: url.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
          identity: readFileSync(full),
          br: read('.br'),
          gzip: read('.gz'),
        });
      }
    };
    walk(this.dir);
    this.security = securityHeaders(files.get('/index.html')?.identity.toString('utf8') ?? '');
    return files;
  }
}
