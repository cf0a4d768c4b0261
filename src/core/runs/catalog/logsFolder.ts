/** The logs folder as the catalog reads it (docs/architecture.md §6). */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { isSafeSegment } from '../../blobs/blobKey.js';
import { parseRunLog } from '../log/runLog.js';
import { snapshotOf, type RunSnapshot } from './rows.js';

export function logPathOf(dir: string, runId: string): string {
  return path.join(dir, `${runId}.jsonl`);
}

/** Stat from the same descriptor as the read. */
export async function snapshotFromLog(dir: string, tenant: string, runId: string): Promise<RunSnapshot | undefined> {
  const fh = await fsp.open(logPathOf(dir, runId), 'r').catch(() => undefined);
  if (!fh) return undefined;
  try {
    const st = await fh.stat();
    if (!st.isFile()) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let got = 0;
    while (got < st.size) {
      const { bytesRead } = await fh.read(buf, got, st.size - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    return snapshotOf(runId, tenant, parseRunLog(buf.subarray(0, got), runId), {
      size: got,
      mtimeMs: st.mtimeMs,
    });
  } finally {
    await fh.close();
  }
}

export async function* logIdBatches(dir: string, size: number): AsyncGenerator<string[]> {
  const folder = await fsp.opendir(dir, { bufferSize: size }).catch(() => undefined);
  if (!folder) return;
  let names: string[] = [];
  for await (const d of folder) {
    const name = d.name;
    if (!name.endsWith('.jsonl') || !isSafeSegment(name.slice(0, -6))) continue;
    names.push(name.slice(0, -6));
    if (names.length >= size) {
      yield names;
      names = [];
    }
  }
  if (names.length > 0) yield names;
}
