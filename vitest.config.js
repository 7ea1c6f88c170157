import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.js', 'tests/package/**/*.test.js'],
    testTimeout: 60_000,
    // Vitest's default is one worker less than the cores: a single worker on a 2-core machine (CI),
    // which then runs the files one after another. They are independent (each loads its own module),
    // so two at a time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
