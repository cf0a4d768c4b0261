/** Shared helpers of the evidence-engine unit tests (temp folders, fakes, an independent reference). */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ArtifactStore } from '../../../../src/core/artifacts/artifacts.js';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import type { ToolAction, ToolPolicy, ToolSpec, ToolWorkspace } from '../../../../src/core/workspace/toolWorkspace.js';

/** A fresh temp folder and its cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `be-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Lowercase hex sha256. */
export function sha256hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A workspace whose every call returns the next scripted result (or a fixed one), counting calls. */
export class ScriptedWorkspace implements ToolWorkspace {
  readonly calls: { action: ToolAction; toolCallId: string | undefined }[] = [];
  readonly policy: ToolPolicy = { allowWrites: false, allowedCommands: [] };
  readonly availableTools: readonly ToolSpec[] = [
    { name: 'read_file', description: 'reads', parameters: { path: 'string' } },
  ];
  readonly modifiedFiles: readonly string[] = ['a.txt'];

  constructor(private readonly answer: (action: ToolAction) => string) {}

  async execute(action: ToolAction, toolCallId?: string): Promise<string> {
    this.calls.push({ action, toolCallId });
    return this.answer(action);
  }
}

/** JSON.stringify of a string: the contract's escaping (non-ASCII as itself). */
const q = (s: string): string => JSON.stringify(s);

/**
 * The contract's 1.2 text taken literally and written independently of the production
 * code: keys spelled out in sorted order, L lowered one byte at a time with a full
 * rebuild each step, boundaries found by trial decoding.
 */
export function referenceObservation(
  bytes: Uint8Array,
  limits: { maxInlineBytes: number; previewBytes: number; maxRangeBytes: number },
): string {
  const n = bytes.length;
  const sha = sha256hex(bytes);
  const id = `artifact-${sha}`;
  const decodes = (b: Uint8Array): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b);
      return true;
    } catch {
      return false;
    }
  };
  const dec = (b: Uint8Array): string => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b);
  const boundary = (i: number): boolean => i <= 0 || i >= n || (bytes[i]! & 0xc0) !== 0x80;
  let e = Math.min(limits.maxRangeBytes, n);
  while (e > 0 && !decodes(bytes.subarray(0, e))) e--;
  for (let l = limits.previewBytes; l >= 0; l--) {
    let h = Math.min(l, n);
    while (!boundary(h)) h--;
    let t = Math.max(h, n - l);
    while (!boundary(t)) t++;
    const json =
      `{"artifact_id":${q(id)},"byte_count":${n},"head_preview":${q(dec(bytes.subarray(0, h)))},"head_range":[0,${h}],` +
      `"omitted_range":[${h},${t}],"range_request":{"path":${q(`.tool-artifacts/${id}/bytes/0-${e}`)},"tool":"read_file"},` +
      `"sha256":${q(sha)},"tail_preview":${q(dec(bytes.subarray(t)))},"tail_range":[${t},${n}]}`;
    const text = `Tool result externalized:\n${json}`;
    if (Buffer.byteLength(text) <= limits.maxInlineBytes) return text;
  }
  throw new Error('evidence observation limit is too small for artifact metadata');
}

/** The JSON object of an observation or range reply (the text after its first line). */
export function jsonAfterFirstLine(text: string): Record<string, unknown> {
  const nl = text.indexOf('\n');
  return JSON.parse(text.slice(nl + 1)) as Record<string, unknown>;
}

/** Tenant of the artifact stores the unit tests open. */
export const TEST_TENANT = 't';

/** An artifact store over a filesystem blob store at `dir` (docs/architecture.md §3), as `openEvidenceStores` builds one. */
export async function openArtifacts(
  dir: string,
  options: { tenant?: string; legacyRoot?: string; chunkSize?: number } = {},
): Promise<ArtifactStore> {
  return new ArtifactStore({
    ...options,
    blobs: await FsBlobStore.open(dir, { sweep: false }),
    tenant: options.tenant ?? TEST_TENANT,
  });
}

/** Where a filesystem blob store at `dir` keeps artifact `id` of `tenant`: `<dir>/<tenant>/artifacts/<sha256>`. */
export function artifactFile(dir: string, id: string, tenant = TEST_TENANT): string {
  return path.join(dir, tenant, 'artifacts', id.slice('artifact-'.length));
}

/** The artifacts a filesystem blob store at `dir` holds for `tenant`, read from the folder itself (sidecars and temporary files aside), sorted. */
export function storedArtifacts(dir: string, tenant = TEST_TENANT): { artifactId: string; byteCount: number }[] {
  const folder = path.join(dir, tenant, 'artifacts');
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((n) => /^[0-9a-f]{64}$/.test(n))
    .sort()
    .map((n) => ({ artifactId: `artifact-${n}`, byteCount: statSync(path.join(folder, n)).size }));
}
