/**
 * A task run on demand on this instance, one run at a time: asked while it runs, it runs once
 * more after. Each ask also runs it again a second later, for what another instance committed
 * while this one's run (or the other's, holding the task's advisory lock) was under way.
 * Returns the function to ask with and a function that stops the later runs.
 */
export function onDemand(task: () => Promise<unknown>, onError: (error: unknown) => void): { ask: () => void; stop: () => void } {
  let running = false;
  let again = false;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = true;
    task()
      .catch(onError)
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const ask = () => {
    run();
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, 1000);
    timer.unref();
    timers.add(timer);
  };
  const stop = () => {
    stopped = true;
    for (const timer of timers) clearTimeout(timer);
  };
  return { ask, stop };
}
