import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.js', 'tests/package/**/*.test.js'],
    testTimeout: 60_000,
    // A file's setup (loading the module, checkpoints) is a deadline, not a timing claim: on a loaded
    // 2-core machine Vitest's default 10 s is too short (trained-heads' setup timed out at load 11).
    hookTimeout: 60_000,
    // Vitest's default is one worker less than the cores: a single worker on a 2-core machine (CI),
    // which then runs the files one after another. They are independent (each loads its own module),
    // so two at a time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
