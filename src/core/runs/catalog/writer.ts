/** Writing the catalog's rows (docs/architecture.md §6), inside the caller's transaction. */
import type { RunRecord } from '../log/records.js';
import type { CatalogDatabase } from './database.js';
import {
  CALL_COLUMNS,
  finishedCall,
  handlesOfListing,
  RUN_COLUMNS,
  shownCall,
  startedCall,
  startedRun,
  type CallListing,
  type CallValues,
  type RunSnapshot,
  type RunValues,
} from './rows.js';

const params = (cols: string): string =>
  cols
    .split(', ')
    .map((c) => `$${c}`)
    .join(', ');
const INSERT_RUN = `INSERT INTO runs (${RUN_COLUMNS}) VALUES (${params(RUN_COLUMNS)})`;
const UPSERT_CALL = `INSERT INTO calls (${CALL_COLUMNS}) VALUES (${params(CALL_COLUMNS)})
  ON CONFLICT (run_id, call_id) DO UPDATE SET ${CALL_COLUMNS.split(', ')
    .slice(2)
    .map((c) => `${c} = excluded.${c}`)
    .join(', ')}`;

const INSERT_CALL_IF_NEW =
  `INSERT INTO calls (${CALL_COLUMNS}) VALUES (${params(CALL_COLUMNS)}) ` + `ON CONFLICT (run_id, call_id) DO NOTHING`;

export interface LogStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * Writes nothing and returns false when the row is not exactly the log minus this line (another writer, a repaired
 * tail, a rebuild): the caller re-indexes.
 */
export function applyRecord(
  db: CatalogDatabase,
  tenant: string,
  record: RunRecord,
  lineBytes: number,
  stamp: LogStamp,
): boolean {
  const at = stamp.size - lineBytes;
  const row = db.get(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = ?`, record.runId) as RunValues | undefined;
  if (record.type === 'run_started') {
    if (at !== 0) return false;
    if (row) deleteRows(db, record.runId);
    db.runNamed(INSERT_RUN, { ...startedRun(record, tenant), log_size: stamp.size, log_mtime: stamp.mtimeMs });
    return true;
  }
  if (!row || row.log_size !== at || row.ok !== 1 || row.problems !== null || row.torn === 1) return false;
  switch (record.type) {
    case 'run_pinned':
      db.run('UPDATE runs SET pinned = ? WHERE run_id = ?', record.pinned ? 1 : 0, record.runId);
      break;
    case 'run_finished':
      db.run(
        'UPDATE runs SET finished_at = ?, status = ? WHERE run_id = ?',
        record.finishedAt,
        record.status,
        record.runId,
      );
      break;
    case 'call_started':
      db.runNamed(INSERT_CALL_IF_NEW, { ...startedCall(row, record) });
      break;
    case 'call_finished': {
      const prior = db.get(
        'SELECT outcome, blob_bytes FROM calls WHERE run_id = ? AND call_id = ?',
        record.runId,
        record.callId,
      ) as { outcome: string; blob_bytes: number } | undefined;
      const next = finishedCall(row, record, at, lineBytes - 1);
      let blob = row.blob_bytes + next.blob_bytes;
      let count = row.call_count;
      if (prior && prior.outcome !== 'open') {
        next.ambiguous = 1;
        blob -= prior.blob_bytes;
      } else count++;
      writeCall(db, next);
      db.run('UPDATE runs SET blob_bytes = ?, call_count = ? WHERE run_id = ?', blob, count, record.runId);
      break;
    }
    case 'call_shown': {
      const call = db.get(
        `SELECT ${CALL_COLUMNS} FROM calls WHERE run_id = ? AND call_id = ?`,
        record.runId,
        record.callId,
      ) as CallValues | undefined;
      if (call && call.outcome !== 'open') {
        const next = shownCall(call, record);
        db.run(
          'UPDATE calls SET whole = ?, shown_n = ?, shown_bytes = ?, reads = ?, read_bytes = ? ' +
            'WHERE run_id = ? AND call_id = ?',
          next.whole,
          next.shown_n,
          next.shown_bytes,
          next.reads,
          next.read_bytes,
          record.runId,
          record.callId,
        );
      }
      break;
    }
  }
  db.run('UPDATE runs SET log_size = ?, log_mtime = ? WHERE run_id = ?', stamp.size, stamp.mtimeMs, record.runId);
  return true;
}

/** A finished call's handles replace any it had. */
function writeCall(db: CatalogDatabase, call: CallValues): void {
  db.runNamed(UPSERT_CALL, { ...call });
  db.run('DELETE FROM handles WHERE run_id = ? AND call_id = ?', call.run_id, call.call_id);
  if (call.outcome === 'open') return;
  for (const h of handlesOfListing(JSON.parse(call.entry) as CallListing)) {
    db.run('INSERT OR IGNORE INTO handles (handle, run_id, call_id) VALUES (?, ?, ?)', h, call.run_id, call.call_id);
  }
}

export function deleteRows(db: CatalogDatabase, runId: string): void {
  db.run('DELETE FROM handles WHERE run_id = ?', runId);
  db.run('DELETE FROM calls WHERE run_id = ?', runId);
  db.run('DELETE FROM runs WHERE run_id = ?', runId);
}

/** Unless the row already reflects a later view of the log; a log rewritten shorter is newer by mtime. */
export function writeSnapshot(db: CatalogDatabase, snap: RunSnapshot): boolean {
  const prior = db.get('SELECT log_size, log_mtime FROM runs WHERE run_id = ?', snap.run.run_id) as
    { log_size: number; log_mtime: number } | undefined;
  if (prior && snap.run.log_size < prior.log_size && snap.run.log_mtime <= prior.log_mtime) return false;
  deleteRows(db, snap.run.run_id);
  db.runNamed(INSERT_RUN, { ...snap.run });
  for (const c of snap.calls) writeCall(db, c);
  return true;
}
