/** Test helpers that reach into a tenant's catalog database (to forge lost writes and damage). */
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CATALOG_FILE } from '../../../../src/core/runs/catalog/database.js';

/** The catalog database of `<dir>/logs/tenant-a`. */
export function catalogPath(dir: string): string {
  return path.join(dir, 'logs', 'tenant-a', CATALOG_FILE);
}

/** Runs SQL on the catalog from a second connection (another process's view), then closes it. */
export function withCatalog<T>(dir: string, fn: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(catalogPath(dir));
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}

/** Row counts of the catalog's tables. */
export function rowCounts(dir: string): { runs: number; calls: number; handles: number } {
  return withCatalog(dir, (db) => {
    const n = (t: string): number => Number((db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n);
    return { runs: n('runs'), calls: n('calls'), handles: n('handles') };
  });
}

/** Bytes of the catalog's database file: totals count it, not its transient WAL (docs/contracts.md §2.7). */
export function catalogBytes(dir: string): number {
  return statSync(catalogPath(dir), { throwIfNoEntry: false })?.size ?? 0;
}
