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
  // Rolldown's per-plugin timing report is noise in a build log.
  build: { rolldownOptions: { checks: { pluginTimings: false } } },
});
