// The page's own work on its main thread, from a Chromium trace (the RunTask events DevTools'
// Performance panel reads). Each task has its wall time (`ms`: what a long-task observer reports,
// stretched whenever other processes take the CPU: on a 2-core machine at load 12 a 120 ms busy
// loop got 22 ms of CPU) and its thread CPU time (`cpuMs`: the page's own work, which another
// process cannot lengthen). Timing tests bound `cpuMs` and print both.
//
//   const trace = await traceMainThread(page);   // before what is measured
//   ...
//   const { tasks, marks } = await trace.stop();
//   tasks: [{ start, ms, cpuMs }] in the trace's clock (ms), on the main thread of each renderer
//   process that showed one of the page's frames; marks: { name: ms } for performance.mark() calls.
const TIMELINE = 'disabled-by-default-devtools.timeline';
const FRAMES = new Set(['TracingStartedInBrowser', 'FrameCommittedInBrowser']);

/** Starts tracing the page's browser; stop() ends it and returns the page's main-thread tasks. */
export async function traceMainThread(page) {
  const cdp = await page.context().newCDPSession(page);
  const kept = [];
  cdp.on('Tracing.dataCollected', ({ value }) => {
    for (const e of value) {
      if ((e.name === 'RunTask' && e.ph === 'X') || e.name === 'thread_name' || FRAMES.has(e.name)) kept.push(e);
      else if (e.cat === 'blink.user_timing' && e.ph === 'I') kept.push(e);
    }
  });
  await cdp.send('Tracing.start', {
    traceConfig: { includedCategories: [TIMELINE, 'blink.user_timing'], excludedCategories: ['*'] },
    transferMode: 'ReportEvents',
  });
  return {
    async stop() {
      const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
      await cdp.send('Tracing.end');
      await complete;
      await cdp.detach().catch(() => {});
      return mainThreadTasks(kept);
    },
  };
}

function mainThreadTasks(events) {
  const pages = new Set();
  for (const e of events.filter((x) => FRAMES.has(x.name))) {
    const data = e.args?.data ?? {};
    for (const frame of data.frames ?? [data]) if (frame.processId) pages.add(frame.processId);
  }
  const mains = new Set(
    events
      .filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && pages.has(e.pid))
      .map((e) => `${e.pid}:${e.tid}`),
  );
  if (mains.size === 0) throw new Error(`the trace shows no main thread of the page's renderer (${pages.size} pids)`);
  const tasks = events
    .filter((e) => e.name === 'RunTask' && mains.has(`${e.pid}:${e.tid}`))
    .map((e) => {
      if (typeof e.tdur !== 'number') throw new Error('this Chromium traces no thread time (tdur)');
      return { start: e.ts / 1000, ms: e.dur / 1000, cpuMs: e.tdur / 1000 };
    });
  const marks = {};
  for (const e of events) if (e.cat === 'blink.user_timing' && pages.has(e.pid)) marks[e.name] = e.ts / 1000;
  return { tasks, marks };
}

/** The tasks of 50 ms or more, wall or CPU, as [wall, cpu] rounded (for messages). */
export const longTasks = (tasks) =>
  tasks.filter((t) => t.ms >= 50 || t.cpuMs >= 50).map((t) => [Math.round(t.ms), Math.round(t.cpuMs)]);
