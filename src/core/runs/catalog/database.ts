/**
 * One SQLite file per tenant in WAL mode, so the editor, MCP servers and command lines read and write it at once
 * (docs/architecture.md §6). Opening is constant time; a file that fails the header check or has another schema
 * version is moved aside and rebuilt from the logs, which stay the truth. `quick_check` runs in a worker after the
 * open.
 */
import { closeSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';

/** Not `*.jsonl`: never taken for a run. */
export const CATALOG_FILE = '.catalog.sqlite';

/**
 * Bump with every change of the tables or of what their rows hold: another version is moved aside and rebuilt from
 * the logs.
 */
const SCHEMA_VERSION = 4;

const BUSY_TIMEOUT_MS = 5000;

/**
 * docs/contracts.md §2.14: never below 0, and 0 for an output shown whole (it would have reached the model anyway) or
 * never shown.
 */
const SAVED =
  "CASE WHEN outcome = 'open' OR whole = 1 OR shown_n = 0 THEN 0 ELSE max(0, out_bytes - shown_bytes - read_bytes) END";

/**
 * Triggers keep the rollup in the call's own transaction, so every writer leaves it equal to the sums over the rows
 * and a report never reads the calls.
 */
export const USAGE_SUMS: readonly (readonly [string, (c: string) => string])[] = [
  ['outputs', () => '1'],
  ['out_bytes', (c) => `${c}.out_bytes`],
  ['kept_bytes', (c) => `${c}.kept_bytes`],
  ['lost', (c) => `(${c}.lost_bytes > 0)`],
  ['lost_bytes', (c) => `${c}.lost_bytes`],
  ['whole', (c) => `${c}.whole`],
  ['shown', (c) => `(${c}.shown_n > 0)`],
  ['shown_bytes', (c) => `${c}.shown_bytes`],
  ['reads', (c) => `${c}.reads`],
  ['read_bytes', (c) => `${c}.read_bytes`],
  ['recalled', (c) => `(${c}.reads > 0)`],
  ['saved', (c) => `${c}.saved`],
  // Outputs no model reached (never shown, never read back): a person's own captures, counted apart.
  ['unreached', (c) => `(${c}.shown_n = 0 AND ${c}.reads = 0)`],
  ['unreached_bytes', (c) => `(CASE WHEN ${c}.shown_n = 0 AND ${c}.reads = 0 THEN ${c}.out_bytes ELSE 0 END)`],
];

const usageKey = (c: string): string =>
  `CAST(${c}.started_ms / 3600000 AS INTEGER), ${c}.source_kind, ${c}.agent, ${c}.tool, ${c}.command`;

function usageAdd(c: string): string {
  const sums = USAGE_SUMS.map(([n]) => `${n} = ${n} + excluded.${n}`).join(', ');
  return `INSERT INTO usage (hour, source_kind, agent, tool, command, ${USAGE_SUMS.map(([n]) => n).join(', ')})
    VALUES (${usageKey(c)}, ${USAGE_SUMS.map(([, v]) => v(c)).join(', ')})
    ON CONFLICT (hour, source_kind, agent, tool, command) DO UPDATE SET ${sums};`;
}

function usageRemove(c: string): string {
  return `UPDATE usage SET ${USAGE_SUMS.map(([n, v]) => `${n} = ${n} - ${v(c)}`).join(', ')}
    WHERE (hour, source_kind, agent, tool, command) = (${usageKey(c)});`;
}

/**
 * Each index serves a query that asks it; the tool index ends with the outcome so a tool and outcome filter stays
 * inside the index.
 */
const SCHEMA =
  `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY, token TEXT NOT NULL, ok INTEGER NOT NULL,
  started_ms REAL NOT NULL, started_at TEXT NOT NULL, finished_at TEXT, status TEXT,
  label TEXT, pinned INTEGER NOT NULL, source TEXT, source_kind TEXT NOT NULL, profile_hash TEXT NOT NULL,
  torn INTEGER NOT NULL, problems TEXT, log_size INTEGER NOT NULL, log_mtime REAL NOT NULL,
  blob_bytes INTEGER NOT NULL, call_count INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX runs_order ON runs (ok, started_ms, run_id);
CREATE INDEX runs_token ON runs (token);
CREATE INDEX runs_open ON runs (run_id) WHERE status IS NULL;
CREATE TABLE calls (
  run_id TEXT NOT NULL, call_id TEXT NOT NULL, n INTEGER NOT NULL, run_started_ms REAL NOT NULL,
  source_kind TEXT NOT NULL, tool TEXT NOT NULL, started_ms REAL NOT NULL, outcome TEXT NOT NULL,
  bytes INTEGER NOT NULL, blob_bytes INTEGER NOT NULL, log_off INTEGER, log_len INTEGER, ambiguous INTEGER NOT NULL,
  entry TEXT NOT NULL,
  agent TEXT NOT NULL, command TEXT NOT NULL, out_bytes INTEGER NOT NULL, kept_bytes INTEGER NOT NULL, ` +
  `lost_bytes INTEGER NOT NULL,
  whole INTEGER NOT NULL, shown_n INTEGER NOT NULL, shown_bytes INTEGER NOT NULL, reads INTEGER NOT NULL, ` +
  `read_bytes INTEGER NOT NULL,
  saved INTEGER GENERATED ALWAYS AS (${SAVED}) VIRTUAL,
  PRIMARY KEY (run_id, call_id)
);
CREATE INDEX calls_order ON calls (started_ms, run_started_ms, run_id, n);
CREATE INDEX calls_tool ON calls (tool, started_ms, run_started_ms, run_id, n, outcome);
CREATE INDEX calls_outcome ON calls (outcome, started_ms, run_started_ms, run_id, n);
CREATE INDEX calls_source ON calls (source_kind, started_ms, run_started_ms, run_id, n);
CREATE INDEX calls_size ON calls (bytes, started_ms, run_started_ms, run_id, n);
CREATE TABLE handles (handle TEXT NOT NULL, run_id TEXT NOT NULL, call_id TEXT NOT NULL, ` +
  `PRIMARY KEY (handle, run_id, call_id)) WITHOUT ROWID;
CREATE INDEX handles_call ON handles (run_id, call_id);
CREATE TABLE totals (id INTEGER PRIMARY KEY CHECK (id = 0), runs INTEGER NOT NULL, ` +
  `bytes INTEGER NOT NULL, calls INTEGER NOT NULL);
INSERT INTO totals VALUES (0, 0, 0, 0);
CREATE TRIGGER calls_added AFTER INSERT ON calls BEGIN UPDATE totals SET calls = calls + 1; END;
CREATE TRIGGER calls_removed AFTER DELETE ON calls BEGIN UPDATE totals SET calls = calls - 1; END;
CREATE TRIGGER runs_added AFTER INSERT ON runs WHEN new.ok = 1 BEGIN
  UPDATE totals SET runs = runs + 1, bytes = bytes + new.log_size + new.blob_bytes;
END;
CREATE TRIGGER runs_removed AFTER DELETE ON runs WHEN old.ok = 1 BEGIN
  UPDATE totals SET runs = runs - 1, bytes = bytes - old.log_size - old.blob_bytes;
END;
CREATE TRIGGER runs_changed AFTER UPDATE OF ok, log_size, blob_bytes ON runs BEGIN
  UPDATE totals SET runs = runs + new.ok - old.ok,
    bytes = bytes + (CASE WHEN new.ok = 1 THEN new.log_size + new.blob_bytes ELSE 0 END) ` +
  `- (CASE WHEN old.ok = 1 THEN old.log_size + old.blob_bytes ELSE 0 END);
END;
CREATE TABLE usage (
  hour INTEGER NOT NULL, source_kind TEXT NOT NULL, agent TEXT NOT NULL, tool TEXT NOT NULL, command TEXT NOT NULL,
  ${USAGE_SUMS.map(([name]) => `${name} INTEGER NOT NULL`).join(', ')},
  PRIMARY KEY (hour, source_kind, agent, tool, command)
) WITHOUT ROWID;
CREATE TRIGGER usage_added AFTER INSERT ON calls WHEN new.outcome != 'open' BEGIN ${usageAdd('new')} END;
CREATE TRIGGER usage_removed AFTER DELETE ON calls WHEN old.outcome != 'open' BEGIN ${usageRemove('old')} END;
CREATE TRIGGER usage_left AFTER UPDATE ON calls WHEN old.outcome != 'open' BEGIN ${usageRemove('old')} END;
CREATE TRIGGER usage_entered AFTER UPDATE ON calls WHEN new.outcome != 'open' BEGIN ${usageAdd('new')} END;
`;

const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;

/** A start is never refused because another process was turning a new file to WAL at the same moment. */
const OPEN_ATTEMPTS = 12;
const OPEN_PAUSE_MS = 25;
const OPEN_PAUSE_MAX_MS = 2000;

function isBusy(e: unknown): boolean {
  const code = (e as { errcode?: unknown } | undefined)?.errcode;
  return typeof code === 'number' && ((code & 0xff) === SQLITE_BUSY || (code & 0xff) === SQLITE_LOCKED);
}

/** Opening is synchronous: the catalog's constructor opens. */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function isDamage(e: unknown): boolean {
  const code = (e as { errcode?: unknown } | undefined)?.errcode;
  return typeof code === 'number' && ((code & 0xff) === SQLITE_CORRUPT || (code & 0xff) === SQLITE_NOTADB);
}

/**
 * Loaded on first open so `--help` never pays for it. Its one ExperimentalWarning (Node 22.13–23) is swallowed: a
 * caller would read it as output.
 */
function sqlite(): typeof import('node:sqlite') {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    (emit as (w: string | Error, ...r: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const m = process.getBuiltinModule?.('node:sqlite') as typeof import('node:sqlite') | undefined;
    if (!m) throw new Error(`bounded-evidence needs Node 22.14 or newer (this is v${process.versions.node})`);
    return m;
  } finally {
    process.emitWarning = emit;
  }
}

function headerProblem(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = statSync(file).size;
    if (size === 0) return undefined;
    const head = Buffer.alloc(100);
    if (readSync(fd, head, 0, 100, 0) < 100) return 'shorter than a header';
    if (head.toString('latin1', 0, 16) !== 'SQLite format 3\0') return 'not a SQLite file';
    const raw = head.readUInt16BE(16);
    const page = raw === 1 ? 65536 : raw;
    if (page < 512 || (page & (page - 1)) !== 0) return 'bad page size';
    if (size % page !== 0) return 'not whole pages (truncated)';
    // The header's page count is only a truncation when there is no WAL to complete the file: a checkpoint copies
    // page 1 before the pages after it.
    const pages = head.readUInt32BE(28);
    const wal = statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    if (wal === 0 && head.readUInt32BE(24) === head.readUInt32BE(92) && pages * page > size)
      return 'shorter than its header says (truncated)';
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface OpenedDatabase {
  readonly db: CatalogDatabase;
  readonly movedAside?: string;
}

export class CatalogDatabase {
  private readonly statements = new Map<string, StatementSync>();
  /** A file replaced or deleted behind this connection is noticed. */
  readonly identity: string;

  private constructor(
    readonly file: string,
    private readonly db: DatabaseSync,
  ) {
    this.identity = identityOf(file) ?? '';
  }

  /**
   * Opens (or creates) the database at `file`; a file that is not a sound database of this
   * schema version is moved aside first and a new one created. Another process holding the
   * file meanwhile (creating it, checking or replacing it at the same moment) is waited for.
   */
  static open(file: string): OpenedDatabase {
    for (let attempt = 1; ; attempt++) {
      try {
        return CatalogDatabase.openOnce(file);
      } catch (e) {
        if (!isBusy(e) || attempt >= OPEN_ATTEMPTS) throw e;
        pauseSync(Math.min(OPEN_PAUSE_MAX_MS, OPEN_PAUSE_MS * 2 ** (attempt - 1)));
      }
    }
  }

  private static openOnce(file: string): OpenedDatabase {
    let movedAside: string | undefined;
    let replacedSeen = 0;
    for (let attempt = 0; ; attempt++) {
      const problem = headerProblem(file);
      if (problem === undefined) {
        let db: DatabaseSync | undefined;
        try {
          db = new (sqlite().DatabaseSync)(file);
          const c = new CatalogDatabase(file, db);
          const version = c.prepare();
          if (version === SCHEMA_VERSION) return { db: c, ...(movedAside !== undefined ? { movedAside } : {}) };
          // Another process replaced this file since: that one is opened, never moved aside in its turn.
          if (identityOf(file) !== c.identity && replacedSeen++ < OPEN_ATTEMPTS) {
            db.close();
            attempt--;
            continue;
          }
          movedAside = `schema version ${version}, not ${SCHEMA_VERSION}`;
        } catch (e) {
          if (!isDamage(e) || attempt > 0) {
            try {
              db?.close();
            } catch {
              /* closing a broken file */
            }
            throw e;
          }
          movedAside = (e as Error).message;
        }
        try {
          db?.close();
        } catch {
          /* closing a broken file */
        }
      } else movedAside = problem;
      if (attempt > 0) throw new Error(`the catalog could not be created: ${movedAside}`);
      moveAside(file);
    }
  }

  private prepare(): number {
    this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // WAL: readers never block writers across processes. NORMAL sync: a power cut may lose the last transactions,
    // never integrity (the logs are the truth).
    this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec('PRAGMA synchronous = NORMAL');
    // Otherwise the WAL keeps its largest size for ever.
    this.db.exec('PRAGMA journal_size_limit = 1048576');
    // SQLite's lower() folds ASCII only.
    this.db.function('lower_js', { deterministic: true }, (v) => (typeof v === 'string' ? v.toLowerCase() : v));
    const version = this.userVersion();
    if (version !== 0) {
      // A damaged first page throws here, not at the first query.
      this.get('SELECT count(*) AS n FROM sqlite_master');
      return version;
    }
    return this.transaction(() => {
      // Another process may have created it between the read above and this write lock.
      const now = this.userVersion();
      if (now !== 0) return now;
      if ((this.get('SELECT count(*) AS n FROM sqlite_master') as { n: number }).n > 0) return -1;
      this.db.exec(SCHEMA);
      this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      return SCHEMA_VERSION;
    });
  }

  private userVersion(): number {
    return (this.get('PRAGMA user_version') as { user_version: number }).user_version;
  }

  statement(sql: string): StatementSync {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  get(sql: string, ...params: SQLInputValue[]): Record<string, unknown> | undefined {
    return this.statement(sql).get(...params) as Record<string, unknown> | undefined;
  }

  all(sql: string, ...params: SQLInputValue[]): Record<string, unknown>[] {
    return this.statement(sql).all(...params) as Record<string, unknown>[];
  }

  run(sql: string, ...params: SQLInputValue[]): number {
    return Number(this.statement(sql).run(...params).changes);
  }

  runNamed(sql: string, values: Record<string, SQLInputValue>): number {
    return Number(this.statement(sql).run(values).changes);
  }

  /** `BEGIN IMMEDIATE`: a deferred one that later needs to write fails with SQLITE_BUSY instead of waiting. */
  transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (e) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        /* already rolled back by SQLite */
      }
      throw e;
    }
  }

  replaced(): boolean {
    return identityOf(this.file) !== this.identity;
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      /* already closed */
    }
  }
}

function identityOf(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}`;
  } catch {
    return undefined;
  }
}

/** One generation kept. */
export function moveAside(file: string): void {
  try {
    renameSync(file, `${file}.damaged`);
  } catch {
    /* gone already */
  }
  // A WAL left at the path would be replayed into the new file.
  for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

/** In a worker: it reads every page. Read-only: a checker that outlives its catalog never checkpoints into a file. */
export async function quickCheck(file: string): Promise<string[]> {
  const { Worker } = await import('node:worker_threads');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    let out = [];
    process.emitWarning = () => {};
    try {
      const { DatabaseSync } = process.getBuiltinModule('node:sqlite');
      const db = new DatabaseSync(workerData, { readOnly: true });
      db.exec('PRAGMA busy_timeout = 5000');
      out = db.prepare('PRAGMA quick_check').all().map((r) => String(Object.values(r)[0])).filter((s) => s !== 'ok');
      db.close();
    } catch (e) {
      const c = e && typeof e.errcode === 'number' ? e.errcode & 0xff : 0;
      if (c === ${SQLITE_CORRUPT} || c === ${SQLITE_NOTADB}) out = [String(e.message)];
    }
    parentPort.postMessage(out);`;
  return new Promise((resolve) => {
    const w = new Worker(code, { eval: true, workerData: file });
    w.once('message', (m: string[]) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', () => resolve([]));
    w.once('exit', () => resolve([]));
    w.unref();
  });
}
