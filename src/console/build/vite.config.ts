import react from '@vitejs/plugin-react';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = fileURLToPath(new URL('../../../dist/console', import.meta.url));

/** Writes .br and .gz beside every text file once, so the front door only picks one. */
function precompress(): Plugin {
  return {
    name: 'radar-precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
      for (const file of walk(outDir)) {
        if (!/\.(html|js|css|svg|json|txt)$/.test(file)) continue;
        const raw = readFileSync(file);
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(raw, {
            params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
          }),
        );
        writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [react(), precompress()],
  // Nothing at build time reaches the network or a cache outside the checkout.
  cacheDir: fileURLToPath(new URL('../../../node_modules/.vite-console', import.meta.url)),
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The CSP allows no inline script: keep the module-preload helper in a file, not inline.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  logLevel: 'warn',
});
