// Waits by the clock for what another thread does (a worker starting or ending, a page moving): a
// loaded machine does it late, and a count of short polls (50 of 5 ms) is then no deadline at all.
// Returns when `condition` holds or `ms` have passed; the caller's expectation says which. Used by
// the Vitest files and, from Node's side, by the browser tests.
export async function until(condition, { ms = 10_000, every = 10 } = {}) {
  for (const end = Date.now() + ms; !(await condition()) && Date.now() < end;) {
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}
