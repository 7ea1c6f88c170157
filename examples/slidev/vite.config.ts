// Vue compiles <headwise-explorer> in the slides as a custom element, not as a Vue component.
import { defineConfig } from 'vite';

export default defineConfig({
  slidev: {
    vue: {
      template: {
        compilerOptions: {
          isCustomElement: (tag: string) => tag === 'headwise-explorer',
        },
      },
    },
  },
  build: {
    // The deck is built into build/site/examples/slidev (outside this folder), which build-site.sh
    // has just made empty: said here, Vite neither warns that it "will not be emptied" nor leaves old files.
    emptyOutDir: true,
    // Rolldown's per-plugin timing report is noise in a build log.
    rolldownOptions: { checks: { pluginTimings: false } },
  },
});
