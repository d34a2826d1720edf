import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The checkout's top folder (where package.json is), found by walking up from this module.
 * The same module runs from `src/shared/` (sources through tsx) and from
 * `dist/server/src/shared/` (the compiled build `npm start` runs), so paths to files that are
 * not compiled (`sql/`, `dist/console/`) start here instead of at a fixed `../..`.
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

export const PACKAGE_ROOT = packageRoot();
