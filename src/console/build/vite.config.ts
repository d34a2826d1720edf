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

/**
 * The console's one stylesheet (9 KB, 3 KB in brotli) goes into index.html as a <style>
 * element instead of a <link>: a stylesheet in the head blocks the first paint for a request
 * of its own (about 150 ms on Lighthouse's simulated mobile network). The front door allows
 * exactly this element by its hash in the CSP (src/http/console-files.ts); no other inline
 * style runs.
 */
function inlineStyles(): Plugin {
  return {
    name: 'radar-inline-styles',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { bundle }) {
        return html.replace(/<link rel="stylesheet"[^>]*href="\/(assets\/[^"]+\.css)"[^>]*>/g, (tag, file: string) => {
          const css = bundle?.[file];
          if (css?.type !== 'asset') return tag;
          delete bundle![file];
          return `<style>${String(css.source).trim()}</style>`;
        });
      },
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [react(), inlineStyles(), precompress()],
  // Nothing at build time reaches the network or a cache outside the checkout.
  cacheDir: fileURLToPath(new URL('../../../node_modules/.vite-console', import.meta.url)),
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // The CSP allows no inline script: keep the module-preload helper in a file, not inline.
    modulePreload: { polyfill: false },
    // One stylesheet for every page, inlined into index.html (inlineStyles): split, lazy
    // pages would each request the entry's stylesheet again, and uPlot's 1.6 KB is not worth
    // a request of its own.
    cssCodeSplit: false,
    assetsInlineLimit: 0,
  },
  logLevel: 'warn',
});
