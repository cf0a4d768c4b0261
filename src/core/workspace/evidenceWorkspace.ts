/**
 * The bounded evidence workspace (docs/contracts.md §1.2, §1.3): wraps any tool workspace so
 * that a model never receives more than `maxInlineBytes` of a result at once. Larger
 * results are stored whole, byte for byte, and replaced by an observation (identity,
 * head and tail previews, the omitted gap, a range request that works when sent back);
 * `read_file` on `.tool-artifacts/<id>/bytes/<start>-<end>` returns verified bytes.
 *
 * Byte-boundary cases and their answers:
 * - Sizes are UTF-8 bytes (TextEncoder's: a lone surrogate counts as the 3 bytes of
 *   U+FFFD it is stored as). A result of exactly `maxInlineBytes` bytes stays inline.
 * - Previews are cut between code points, never through one: a 4-byte character that
 *   does not fit the preview budget is left out whole, so no U+FFFD is ever invented.
 * - The preview budget L is lowered one byte at a time until the observation fits; the
 *   observation's size for each L is computed from prefix sums of per-byte JSON costs,
 *   so finding L costs O(previewBytes), not O(previewBytes²) JSON rebuilds.
 */
import type { ArtifactRef } from '../artifacts/artifactRef.js';
import type { ArtifactStore } from '../artifacts/artifacts.js';
import { ErrorText, EvidenceError } from '../errors.js';
import { canonicalJson } from '../json.js';
import { escapeBinary } from '../runs/search/patternAnalysis.js';
import { ToolName, type ToolAction, type ToolPolicy, type ToolSpec, type ToolWorkspace } from './toolWorkspace.js';
import { ceilCodePointBoundary, decodeUtf8Strict, encodeUtf8, floorCodePointBoundary } from '../utf8.js';

/** The three limits of the bounded workspace, in UTF-8 bytes. */
export interface EvidenceLimits {
  /** Largest result (and observation) a model receives inline. */
  readonly maxInlineBytes: number;
  /** Starting budget of each preview (head and tail). */
  readonly previewBytes: number;
  /** Largest byte range one virtual read returns. */
  readonly maxRangeBytes: number;
}

/** The core's defaults (the editor passes larger ones from its settings). */
export const DEFAULT_EVIDENCE_LIMITS: EvidenceLimits = { maxInlineBytes: 512, previewBytes: 64, maxRangeBytes: 512 };

/** The constructor's validation sentences, in the order they are checked. */
const LimitErrorText = {
  notPositive: 'evidence limits must be positive integers',
  inlineTooSmall: 'maxInlineBytes must be at least 512',
  rangeTooSmall: 'maxRangeBytes must be at least 4',
  previewTooLarge: 'previewBytes must not exceed maxInlineBytes',
} as const;

/** First line of an observation (the JSON follows on the next line). */
export const OBSERVATION_PREFIX = 'Tool result externalized:\n';
/** First line of a virtual range read's reply. */
export const RANGE_PREFIX = 'Artifact range:\n';
/** A `read_file` path with this prefix is a virtual read and never reaches the wrapped workspace. */
export const VIRTUAL_PREFIX = '.tool-artifacts/';

/** Fills in defaults and checks the limits in the contract's order; throws `EvidenceError`. */
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

/** A parsed virtual range path. */
export interface RangePath {
  /** The artifact addressed (well-formed; the store may still not know it). */
  readonly artifactId: string;
  /** First byte, inclusive. */
  readonly start: number;
  /** End byte, exclusive. */
  readonly end: number;
}

/**
 * The whole string must be the path: JavaScript's `$` without the `m` flag matches only
 * at the very end, so a trailing newline does not slip through.
 */
const RANGE_PATH = /^\.tool-artifacts\/(artifact-[0-9a-f]{64})\/bytes\/([0-9]+)-([0-9]+)$/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Parses `.tool-artifacts/<artifactId>/bytes/<start>-<end>`; undefined when the path is
 * malformed or a bound is not a safe integer (decided exactly with BigInt, so
 * `9007199254740993` is not mistaken for its rounded neighbour).
 */
export function parseRangePath(p: string): RangePath | undefined {
  const m = RANGE_PATH.exec(p);
  if (!m) return undefined;
  const [, artifactId, s, e] = m as unknown as [string, string, string, string];
  if (BigInt(s) > MAX_SAFE || BigInt(e) > MAX_SAFE) return undefined;
  return { artifactId, start: Number(s), end: Number(e) };
}

/** Bytes `[start, end)` of the result being externalized (a view, not a copy, is fine). */
export type ByteWindow = (start: number, end: number) => Uint8Array;

/**
 * Builds the observation of an externalized text result exactly as docs/contracts.md §1.2 prints
 * it. `window` gives access to the result's bytes (which must be valid UTF-8, as every
 * encoded string is); only the first and last `previewBytes` and the bytes around
 * `min(maxRangeBytes, N)` are read, so a caller may pass a result it does not hold.
 * Throws `observationTooSmall` when even empty previews do not fit.
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
 * The observation of a result that is not UTF-8 (docs/contracts.md §3.3): the §1.2 shape
 * with `"binary":true`, previews of whole bytes escaped as binary search matches are
 * (`escapeBinary`: printable ASCII as is, `\` doubled, any other byte `\xNN`), and no
 * `range_request` (a text range of binary bytes cannot be promised to decode; the
 * handle's byte window reads them as a hex dump). H and T follow 1.2 with every byte a
 * boundary; L is the largest budget `<= previewBytes` that fits `maxInlineBytes` (the
 * size grows with L, so it is found by bisection). `window` is read as in `buildObservation`.
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

/** The contract's loop taken literally; only reached if the size arithmetic ever disagrees. */
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

/**
 * Bytes one UTF-8 byte takes inside a JSON string as JSON.stringify writes it: `"` and
 * `\` and the five short control escapes take 2, other control characters 6
 * (`\u00XX`), every other byte (including each byte of a non-ASCII character) 1.
 */
function jsonByteCost(b: number): number {
  if (b === 0x22 || b === 0x5c) return 2;
  if (b >= 0x20) return 1;
  return b === 0x08 || b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d ? 2 : 6;
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The store operations the bounded workspace needs (an `ArtifactStore`, or a test double). */
export type EvidenceArtifacts = Pick<ArtifactStore, 'put' | 'readRange' | 'refOf'>;

/** What `executeDetailed` answers. */
export interface BoundedResult {
  /** What the model sees (exactly `execute`'s answer). */
  readonly text: string;
  /** The wrapped workspace's result (absent for a virtual range read). */
  readonly result?: string;
  /** The artifact the result was externalized to, and its exact bytes. */
  readonly artifact?: { readonly ref: ArtifactRef; readonly bytes: Uint8Array };
}

/** Wraps a tool workspace so every result a model sees is bounded (docs/contracts.md §1.2). */
export class BoundedEvidenceWorkspace implements ToolWorkspace {
  /** The limits in force, defaults filled in. */
  readonly limits: EvidenceLimits;

  constructor(
    private readonly workspace: ToolWorkspace,
    private readonly artifacts: EvidenceArtifacts,
    limits: Partial<EvidenceLimits> = {},
  ) {
    this.limits = resolveEvidenceLimits(limits);
  }

  /** The wrapped workspace's policy, unchanged. */
  get policy(): ToolPolicy {
    return this.workspace.policy;
  }
  /** The wrapped workspace's tools, unchanged. */
  get availableTools(): readonly ToolSpec[] {
    return this.workspace.availableTools;
  }
  /** The wrapped workspace's modified files, unchanged. */
  get modifiedFiles(): readonly string[] {
    return this.workspace.modifiedFiles;
  }

  /**
   * Runs an action. Virtual range reads are answered here; everything else goes to the
   * wrapped workspace, and a large non-error result comes back as an observation.
   */
  async execute(action: ToolAction, toolCallId?: string): Promise<string> {
    return (await this.executeDetailed(action, toolCallId)).text;
  }

  /**
   * `execute`, plus what a caller recording the call needs: the wrapped workspace's own
   * result (absent for virtual reads) and, when it was externalized, the stored
   * artifact and its exact bytes (so the record can name the artifact instead of
   * storing the bytes again).
   */
  async executeDetailed(action: ToolAction, toolCallId?: string): Promise<BoundedResult> {
    const target = action.tool === ToolName.readFile ? action.arguments?.path : undefined;
    if (typeof target === 'string' && target.startsWith(VIRTUAL_PREFIX)) return { text: await this.readRange(target) };
    return this.bound(await this.workspace.execute(action, toolCallId));
  }

  /**
   * A wrapped workspace's result as the model sees it (§1.2): an `error:` or a small result
   * as it is, a large one externalized and observed. For a caller that read the file itself
   * (`tools/fileReads.ts`: one open decides between reading and streaming).
   */
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

  /** Contract 1.3: checks in the table's order, every failure an `error:` result. */
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
      // Stored under this tenant's key, or not available (docs/contracts.md §2.8); then read and verified.
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
