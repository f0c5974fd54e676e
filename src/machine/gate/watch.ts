// Wakes a waiter when the gate's folder changes, so a freed slot is taken in milliseconds
// rather than at the next poll. Fails open to plain polling: fs.watch may be unavailable
// (no inotify watches left, a network file system) and events may be missed.
import { type FSWatcher, watch } from 'node:fs';
import { unlessSystemError } from '../../core/best-effort.js';
import type { Clock } from '../../core/deps.js';
import { STATE_FILE } from './paths.js';

export interface GateWatch {
  /** Resolves after ms, or sooner when the folder changed since the last wait. */
  wait(clock: Clock, ms: number): Promise<void>;
  close(): void;
}

export function watchGate(dir: string): GateWatch {
  let changed = false;
  let wake: AbortController | undefined;
  let watcher: FSWatcher | undefined;
  try {
    // Only a new state.json can free a slot; lock traffic in the same folder would wake every waiter for nothing.
    watcher = watch(dir, { persistent: false }, (_event, name) => {
      if (name !== null && name !== STATE_FILE) return;
      changed = true;
      wake?.abort();
    });
    watcher.on('error', () => watcher?.close());
  } catch (e) {
    // No watch to be had (the folder gone, no inotify watches left): polling alone wakes the waiter.
    watcher = unlessSystemError(undefined)(e);
  }
  return {
    async wait(clock, ms) {
      if (changed) {
        changed = false;
        return;
      }
      wake = new AbortController();
      await clock.sleep(ms, wake.signal);
      wake = undefined;
      changed = false;
    },
    close: () => watcher?.close(),
  };
}
