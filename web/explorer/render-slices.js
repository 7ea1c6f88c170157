// A render as a list of slices, run a few per task, so that no task holds the page for long: the
// owner's work for a group of panels one part per slice (the layer first, then each part the group
// views that is not computed yet: one large call into the module each), then the group's drawing.
// A slice that finishes early lets the next run in the same task (a small configuration renders
// in one task, as before); after BUDGET_MS the rest waits for the next frame.

export const BUDGET_MS = 8;

/**
 * The part lists to compute, in order, before the panels `ids` are drawn: each one part longer
 * than the one before, starting from those already computed in this render (the base alone when
 * none is). panelParts: PANEL_PARTS (panel -> the parts it views).
 */
export function partSteps(ids, computed, panelParts) {
  const parts = [...computed];
  const steps = [[...parts]];
  for (const id of ids) {
    for (const part of panelParts[id]) {
      if (parts.includes(part)) continue;
      parts.push(part);
      steps.push([...parts]);
    }
  }
  return steps;
}

/**
 * Runs slices in order: at least one per task (the first task now), more while the task has lasted under BUDGET_MS;
 * `later(next)` schedules the next task (the element cancels it when a newer render starts), and
 * `isCurrent()` going false stops the run. `onDone()` after the last slice.
 */
export function runSlices(slices, { later, isCurrent, onDone, now = () => performance.now() }) {
  let k = 0;
  const task = () => {
    if (!isCurrent()) return;
    const t0 = now();
    while (k < slices.length) {
      slices[k]();
      k += 1;
      if (now() - t0 >= BUDGET_MS || !isCurrent()) break;
    }
    if (!isCurrent()) return;
    if (k < slices.length) later(task);
    else onDone();
  };
  task();
}
