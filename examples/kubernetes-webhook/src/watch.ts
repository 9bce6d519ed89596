/**
 * Calls back when a folder's content may have changed. Kubernetes mounts a
 * ConfigMap or Secret volume as files that are symlinks into `..data`, itself
 * a symlink to a timestamped folder; an update writes a new folder and swaps
 * `..data` with a rename. A watch on the mounted folder sees that rename (the
 * files themselves never change), as it sees plain edits in a local folder.
 * Events come in bursts, so the callback runs once after they settle; the
 * callback compares content itself, so a spurious call costs one read.
 * `pollMs` adds a periodic call, for volumes whose changes raise no events.
 */
import { watch, type FSWatcher } from 'node:fs';

export interface FolderWatch {
  close(): void;
}

export interface WatchOptions {
  /** Quiet time after the last event before `onChange` runs, in ms (default 100). */
  settleMs?: number;
  /** Also call `onChange` every `pollMs` ms (default: never). */
  pollMs?: number;
  onError?: (error: Error) => void;
}

/** Watches `folder` (not recursively) and calls `onChange` `settleMs` after the last event. */
export function watchFolder(folder: string, onChange: () => void, options: WatchOptions = {}): FolderWatch {
  const settleMs = options.settleMs ?? 100;
  let timer: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(folder, { persistent: false }, () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, settleMs);
  });
  watcher.on('error', (error) => options.onError?.(error));
  const poll = options.pollMs ? setInterval(onChange, options.pollMs).unref() : undefined;
  return {
    close() {
      clearTimeout(timer);
      clearInterval(poll);
      watcher.close();
    },
  };
}
