#!/usr/bin/env node
// The `radar` executable. It runs the compiled JavaScript in dist/server (built by `npm install`,
// the `prepare` script, or `npm run build:server`) when that build is at least as new as every
// TypeScript source; otherwise the sources themselves through tsx's loader, so a checkout being
// edited never runs stale code. The loader costs a running front door ~40 MB of memory and a
// per-closure cost on every call (see README, Benchmark), hence the build. RADAR_RUN=sources
// (the tests) or RADAR_RUN=build forces one.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BUILT_MAIN = join(ROOT, 'dist', 'server', 'src', 'cli', 'main.js');
/** What the build compiles (tsconfig.build.json). */
const SOURCES = ['config', 'src', 'workers'];

/** Newest modification time of the TypeScript sources under `dir` (milliseconds). */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== join(ROOT, 'src', 'console')) newest = Math.max(newest, newestSource(path));
    } else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function buildIsCurrent() {
  let built;
  try {
    built = statSync(BUILT_MAIN).mtimeMs;
  } catch {
    return false;
  }
  return SOURCES.every((dir) => newestSource(join(ROOT, dir)) <= built);
}

const mode = process.env.RADAR_RUN;
if (mode === 'build' || (mode !== 'sources' && buildIsCurrent())) {
  await import(pathToFileURL(BUILT_MAIN).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./main.ts');
}
