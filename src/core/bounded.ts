// A child started in its own process group can be ended whole: killing only the child (what
// execa's `timeout` does) leaves its children (receive-pack, a hook, ssh, whatever a check
// started) holding the pipes, so the wait outlives its deadline (measured: 75 s for 30 s).

/** Kills the process group of `pid` at `ms`, or when `signal` aborts. */
export function boundGroup(pid: number | undefined, ms: number, signal?: AbortSignal) {
  let fired: 'timeout' | 'abort' | undefined;
  const kill = (why: 'timeout' | 'abort') => {
    fired ??= why;
    if (pid === undefined) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // cleanup: the group may already be gone
    }
  };
  const timer = setTimeout(() => kill('timeout'), Math.max(0, ms));
  const onAbort = () => kill('abort');
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  return {
    /** Why the group was killed, if it was. */
    get fired() {
      return fired;
    },
    /** Whether the timeout keeps this process alive (node's ref); a caller that lets go of the child unrefs it. */
    hold(on: boolean) {
      if (on) timer.ref();
      else timer.unref();
    },
    done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
}
