/**
 * Hears other processes write the store, which this one otherwise does not. Events only say "look again": the catalog
 * is the one source of figures.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { StorageLayout } from '../../core/index.js';
import { SPOOL_DIR } from '../../core/reach/rewrite.js';

/** The caller debounces. */
export function watchStore(layout: StorageLayout, changed: () => void): { dispose(): void } {
  const watchers: fs.FSWatcher[] = [];
  for (const dir of [path.join(layout.logsDir, layout.tenant), path.join(layout.root, SPOOL_DIR)]) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const w = fs.watch(dir, () => changed());
      // A folder removed under the watch ends it; the caller's poll still reads the totals.
      w.on('error', () => w.close());
      watchers.push(w);
    } catch {
      /* no watch: the totals still follow this process's records and the poll */
    }
  }
  return { dispose: () => watchers.forEach((w) => w.close()) };
}
