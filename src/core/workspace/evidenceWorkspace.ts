/**
 * The bounded evidence workspace (docs/contracts.md §1.2, §1.3): a model never receives more than `maxInlineBytes` of
 * a result at once. Previews are cut between code points, so no U+FFFD is invented; the preview budget comes from
 * prefix sums of JSON costs, O(previewBytes) rather than a rebuild per byte.
 */
import type { ArtifactRef } from '../artifacts/artifactRef.js';
import type { ArtifactStore } from '../artifacts/artifacts.js';
import { ErrorText, EvidenceError } from '../errors.js';
import { canonicalJson } from '../json.js';
import { escapeBinary } from '../runs/search/patternAnalysis.js';
import { ToolName, type ToolAction, type ToolPolicy, type ToolSpec, type ToolWorkspace } from './toolWorkspace.js';
import { ceilCodePointBoundary, decodeUtf8Strict, encodeUtf8, floorCodePointBoundary } from '../utf8.js';

export interface EvidenceLimits {
  readonly maxInlineBytes: number;
  readonly previewBytes: number;
  readonly maxRangeBytes: number;
}

/** The editor passes larger ones from its settings. */
export const DEFAULT_EVIDENCE_LIMITS: EvidenceLimits = { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 };

/** In the order they are checked. */
const LimitErrorText = {
  notPositive: 'evidence limits must be positive integers',
  inlineTooSmall: 'maxInlineBytes must be at least 512',
  rangeTooSmall: 'maxRangeBytes must be at least 4',
  previewTooLarge: 'previewBytes must not exceed maxInlineBytes',
} as const;

export const OBSERVATION_PREFIX = 'Tool result externalized:\n';
export const RANGE_PREFIX = 'Artifact range:\n';
export const VIRTUAL_PREFIX = '.tool-artifacts/';

export function resolveEvidenceLimits(limits: Partial<EvidenceLimits> = {}): EvidenceLimits {
  const merged: EvidenceLimits = {
    maxInlineBytes: limits.maxInlineBytes ?? DEFAULT_EVIDENCE_LIMITS.maxInlineBytes,
    previewBytes: limits.previewBytes ?? DEFAULT_EVIDENCE_LIMITS.previewBytes,
    maxRangeBytes: limits.maxRangeBytes ?? DEFAULT_EVIDENCE_LIMITS.maxRangeBytes,
  };
  const positive = (v: unknown): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;
  if (![merged.maxInlineBytes, merged.previewBytes, merged.maxRangeBytes].every(positive)) {
    throw new EvidenceError('invalidArgument', LimitErrorText.notPositive);
  }
  if (merged.maxInlineBytes < 512) throw new EvidenceError('invalidArgument', LimitErrorText.inlineTooSmall);
  // One 4-byte code point must always fit, or an advertised range could be empty.
  if (merged.maxRangeBytes < 4) throw new EvidenceError('invalidArgument', LimitErrorText.rangeTooSmall);
  if (merged.previewBytes > merged.maxInlineBytes)
    throw new EvidenceError('invalidArgument', LimitErrorText.previewTooLarge);
  return merged;
}

export interface RangePath {
  /** Well-formed; the store may still not know it. */
  readonly artifactId: string;
  readonly start: number;
  readonly end: number;
}

/** `$` without the `m` flag matches only at the very end, so a trailing newline does not slip through. */
const RANGE_PATH = /^\.tool-artifacts\/(artifact-[0-9a-f]{64})\/bytes\/([0-9]+)-([0-9]+)$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** Bounds decided with BigInt, so `9007199254740993` is not mistaken for its rounded neighbour. */
export function parseRangePath(p: string): RangePath | undefined {
  const m = RANGE_PATH.exec(p);
  if (!m) return undefined;
  const [, artifactId, s, e] = m as unknown as [string, string, string, string];
  if (BigInt(s) > MAX_SAFE || BigInt(e) > MAX_SAFE) return undefined;
  return { artifactId, start: Number(s), end: Number(e) };
}

/** A view, not a copy, is fine. */
export type ByteWindow = (start: number, end: number) => Uint8Array;

/**
 * Exactly as docs/contracts.md §1.2 prints it. Only the ends and the bytes around `min(maxRangeBytes, N)` are read,
 * so a caller may pass a result it does not hold.
 */
export function buildObservation(ref: ArtifactRef, window: ByteWindow, limits: EvidenceLimits): string {
  const n = ref.byteCount;
  const p = Math.min(limits.previewBytes, n);
  // One byte past the budget tells whether the budget itself is a boundary.
  const head = window(0, Math.min(n, p + 1));
  const tailBase = Math.max(0, n - p);
  const tail = window(tailBase, n);
  const m = Math.min(limits.maxRangeBytes, n);
  const eBase = Math.max(0, m - 3);
  const rangeEnd = eBase + floorCodePointBoundary(window(eBase, Math.min(n, m + 1)), m - eBase);

  const headCost = new Uint32Array(head.length + 1);
  for (let i = 0; i < head.length; i++) headCost[i + 1] = headCost[i]! + jsonByteCost(head[i]!);
  const tailCost = new Uint32Array(tail.length + 1); // tailCost[j] = cost of tail[j..]
  for (let j = tail.length - 1; j >= 0; j--) tailCost[j] = tailCost[j + 1]! + jsonByteCost(tail[j]!);

  const cut = (budget: number): { h: number; t: number } => {
    const h = floorCodePointBoundary(head, budget);
    const t = tailBase + ceilCodePointBoundary(tail, Math.max(h, n - budget) - tailBase);
    return { h, t };
  };
  const json = (h: number, t: number, headPreview: string, tailPreview: string): string =>
    OBSERVATION_PREFIX +
    canonicalJson({
      artifact_id: ref.artifactId,
      byte_count: n,
      head_preview: headPreview,
      head_range: [0, h],
      omitted_range: [h, t],
      range_request: { path: `${VIRTUAL_PREFIX}${ref.artifactId}/bytes/0-${rangeEnd}`, tool: ToolName.readFile },
      sha256: ref.sha256,
      tail_preview: tailPreview,
      tail_range: [t, n],
    });
  const render = (h: number, t: number): string =>
    json(h, t, decodeUtf8Strict(head.subarray(0, h)), decodeUtf8Strict(tail.subarray(t - tailBase)));
  // Empty previews with both offsets 0: every other size adds preview costs and digits.
  const base = utf8Length(json(0, 0, '', '')) - 4;
  const predicted = (h: number, t: number): number =>
    base + headCost[h]! + tailCost[t - tailBase]! + 2 * String(h).length + 2 * String(t).length;

  for (let budget = p; budget >= 0; budget--) {
    const { h, t } = cut(budget);
    const size = predicted(h, t);
    if (size > limits.maxInlineBytes) continue;
    const text = render(h, t);
    if (utf8Length(text) === size) return text;
    return bruteForceObservation(cut, render, p, limits.maxInlineBytes);
  }
  throw new EvidenceError('observationTooSmall');
}

/**
 * docs/contracts.md §3.3: no `range_request`, since a text range of binary bytes cannot be promised to decode. The
 * budget is found by bisection, as the size grows with it.
 */
export function buildBinaryObservation(ref: ArtifactRef, window: ByteWindow, limits: EvidenceLimits): string {
  const n = ref.byteCount;
  const p = Math.min(limits.previewBytes, n);
  const head = window(0, p);
  const tailBase = n - p;
  const tail = window(tailBase, n);
  const render = (budget: number): string => {
    const h = budget;
    const t = Math.max(h, n - budget);
    return (
      OBSERVATION_PREFIX +
      canonicalJson({
        artifact_id: ref.artifactId,
        binary: true,
        byte_count: n,
        head_preview: escapeBinary(Buffer.from(head.subarray(0, h)).toString('latin1')),
        head_range: [0, h],
        omitted_range: [h, t],
        sha256: ref.sha256,
        tail_preview: escapeBinary(Buffer.from(tail.subarray(t - tailBase)).toString('latin1')),
        tail_range: [t, n],
      })
    );
  };
  const fits = (budget: number): boolean => utf8Length(render(budget)) <= limits.maxInlineBytes;
  if (!fits(0)) throw new EvidenceError('observationTooSmall');
  let lo = 0;
  let hi = p;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return render(lo);
}

/** Only reached if the size arithmetic ever disagrees. */
function bruteForceObservation(
  cut: (budget: number) => { h: number; t: number },
  render: (h: number, t: number) => string,
  p: number,
  maxInlineBytes: number,
): string {
  for (let budget = p; budget >= 0; budget--) {
    const { h, t } = cut(budget);
    const text = render(h, t);
    if (utf8Length(text) <= maxInlineBytes) return text;
  }
  throw new EvidenceError('observationTooSmall');
}

/** As JSON.stringify writes it. */
function jsonByteCost(b: number): number {
  if (b === 0x22 || b === 0x5c) return 2;
  if (b >= 0x20) return 1;
  return b === 0x08 || b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d ? 2 : 6;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export type EvidenceArtifacts = Pick<ArtifactStore, 'put' | 'readRange' | 'refOf'>;

export interface BoundedResult {
  /** Exactly `execute`'s answer. */
  readonly text: string;
  /** Absent for a virtual range read. */
  readonly result?: string;
  readonly artifact?: { readonly ref: ArtifactRef; readonly bytes: Uint8Array };
}

/** docs/contracts.md §1.2. */
export class BoundedEvidenceWorkspace implements ToolWorkspace {
  readonly limits: EvidenceLimits;

  constructor(
    private readonly workspace: ToolWorkspace,
    private readonly artifacts: EvidenceArtifacts,
    limits: Partial<EvidenceLimits> = {},
  ) {
    this.limits = resolveEvidenceLimits(limits);
  }

  get policy(): ToolPolicy {
    return this.workspace.policy;
  }
  get availableTools(): readonly ToolSpec[] {
    return this.workspace.availableTools;
  }
  get modifiedFiles(): readonly string[] {
    return this.workspace.modifiedFiles;
  }

  async execute(action: ToolAction, toolCallId?: string): Promise<string> {
    return (await this.executeDetailed(action, toolCallId)).text;
  }

  /** The artifact lets a recording name it instead of storing the bytes again. */
  async executeDetailed(action: ToolAction, toolCallId?: string): Promise<BoundedResult> {
    const target = action.tool === ToolName.readFile ? action.arguments?.path : undefined;
    if (typeof target === 'string' && target.startsWith(VIRTUAL_PREFIX)) return { text: await this.readRange(target) };
    return this.bound(await this.workspace.execute(action, toolCallId));
  }

  /** For a caller that read the file itself (one open decides between reading and streaming). */
  async bound(result: string): Promise<BoundedResult> {
    if (result.startsWith('error:')) return { text: result, result };
    const bytes = encodeUtf8(result);
    if (bytes.length <= this.limits.maxInlineBytes) return { text: result, result };
    const ref = await this.artifacts.put(bytes);
    return {
      text: buildObservation(ref, (s, e) => bytes.subarray(s, e), this.limits),
      result,
      artifact: { ref, bytes },
    };
  }

  /** Contract 1.3: checks in the table's order. */
  private async readRange(p: string): Promise<string> {
    const range = parseRangePath(p);
    if (!range) return `error: ${ErrorText.rangeMalformed}`;
    const { artifactId, start, end } = range;
    if (end - start > this.limits.maxRangeBytes)
      return `error: artifact range exceeds ${this.limits.maxRangeBytes} bytes`;
    if (!(start < end)) return `error: ${ErrorText.rangeOrder}`;
    let ref: ArtifactRef;
    let bytes: Uint8Array;
    try {
      // Stored under this tenant's key, or not available (docs/contracts.md §2.8).
      ref = await this.artifacts.refOf(artifactId);
      bytes = await this.artifacts.readRange(artifactId, start, end);
    } catch (e) {
      // Store errors carry only contract sentences; anything else might carry a path.
      return `error: ${e instanceof EvidenceError ? e.message : ErrorText.notAvailable}`;
    }
    let data: string;
    try {
      data = decodeUtf8Strict(bytes);
    } catch {
      return `error: ${ErrorText.rangeNotUtf8}`;
    }
    return (
      RANGE_PREFIX +
      canonicalJson({
        artifact_id: artifactId,
        byte_count: bytes.length,
        data,
        end,
        sha256: ref.sha256,
        start,
        total_byte_count: ref.byteCount,
      })
    );
  }
}
