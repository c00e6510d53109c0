// Vite (the bundler tests/package already checks borch-ts with) bundles the page, CodeMirror and
// uPlot into $PLAYGROUND_OUT (default ../../target/playground). borch-ts stays outside the bundle:
// the page and the code it runs import it through index.html's import map, one instance for both.
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  build: {
    outDir: process.env.PLAYGROUND_OUT ?? '../../target/playground',
    emptyOutDir: true,
    rollupOptions: { external: ['borch-ts'] },
    // CodeMirror with both languages and uPlot: one ~620 kB chunk (217 kB gzipped), loaded once.
    chunkSizeWarningLimit: 1024,
  },
});
