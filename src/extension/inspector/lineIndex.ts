/**
 * A sparse line index over the verified bytes behind one handle, so the panel can show
 * exact byte positions for line windows and line numbers for byte windows without
 * holding the artifact in memory: the newlines before each 64 KiB checkpoint come from the
 * handle's recorded index (or one counting pass when it has none); a lookup then reads one
 * checkpoint's bytes (verified).
 * Lines follow docs/contracts.md §2.5: line N (0-based) starts right after the N-th `\n`.
 */
import { countNewlines, type HandleSource } from '../../core/index.js';

/** Bytes between checkpoints (matches the integrity chunk size, so reads stay chunk-aligned). */
export const lineIndexStride = 64 * 1024;

/** The part of a handle the index reads (the recorded newline index when it has one). */
export type LineSource = Pick<HandleSource, 'byteCount' | 'readRange' | 'stream'> &
  Partial<Pick<HandleSource, 'newlineIndex' | 'lineCount'>>;

/** Newline checkpoints of one artifact. */
export class LineIndex {
  private constructor(
    private readonly src: LineSource,
    /** `checkpoints[i]` = newlines in bytes `[0, i * stride)`. */
    private readonly checkpoints: readonly number[],
    /** Newlines in the whole artifact. */
    readonly totalNewlines: number,
    /** Lines as the contract counts them: newlines, plus one when the last byte is not `\n`. */
    readonly lineCount: number,
  ) {}

  /** Streams the bytes once (verified) and records the checkpoints; memory is one number per 64 KiB. */
  static async build(src: LineSource): Promise<LineIndex> {
    // The newline counts recorded at write time give the checkpoints without reading a
    // byte; a source without them (or with another chunk size) is counted once.
    const recorded = src.newlineIndex;
    if (recorded && recorded.chunkSize === lineIndexStride && src.lineCount !== undefined) {
      const checkpoints = [0];
      let newlines = 0;
      recorded.chunkNewlines.forEach((n, i) => {
        newlines += n;
        if ((i + 1) * lineIndexStride <= src.byteCount) checkpoints.push(newlines);
      });
      return new LineIndex(src, checkpoints, newlines, src.lineCount);
    }
    const checkpoints = [0];
    let pos = 0;
    let newlines = 0;
    let last = -1;
    for await (const piece of src.stream(0, src.byteCount)) {
      let off = 0;
      while (off < piece.length) {
        const boundary = checkpoints.length * lineIndexStride;
        const take = Math.min(piece.length - off, boundary - pos);
        newlines += countNewlines(piece.subarray(off, off + take));
        off += take;
        pos += take;
        if (pos === boundary) checkpoints.push(newlines);
      }
      if (piece.length > 0) last = piece[piece.length - 1]!;
    }
    const lineCount = newlines + (pos > 0 && last !== 10 ? 1 : 0);
    return new LineIndex(src, checkpoints, newlines, lineCount);
  }

  /** Byte offset just after the k-th newline (1-based `k`, at most `totalNewlines`). */
  private async afterNewline(k: number): Promise<number> {
    // Largest checkpoint with fewer than k newlines before it: the k-th lies in that stride.
    let lo = 0;
    let hi = this.checkpoints.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.checkpoints[mid]! < k) lo = mid;
      else hi = mid - 1;
    }
    const base = lo * lineIndexStride;
    const bytes = await this.src.readRange(base, Math.min(base + lineIndexStride, this.src.byteCount));
    let remaining = k - this.checkpoints[lo]!;
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] === 10 && --remaining === 0) return base + i + 1;
    }
    throw new Error('line index does not match the bytes it was built from');
  }

  /** Start offset of 0-based line `line`, or undefined when there is no such line. */
  async lineStart(line: number): Promise<number | undefined> {
    if (line >= this.lineCount) return undefined;
    return line === 0 ? 0 : await this.afterNewline(line);
  }

  /** Byte range of lines `[offset, offset + count)`, clipped to the last line; undefined past the end. */
  async linesRange(offset: number, count: number): Promise<{ start: number; end: number; lines: number } | undefined> {
    const start = await this.lineStart(offset);
    if (start === undefined) return undefined;
    const stop = offset + count;
    const end = stop <= this.totalNewlines ? await this.afterNewline(stop) : this.src.byteCount;
    return { start, end, lines: Math.min(count, this.lineCount - offset) };
  }

  /** 0-based line on which byte `offset` lies (`offset` may equal the size). */
  async lineAt(offset: number): Promise<number> {
    const i = Math.min(Math.floor(offset / lineIndexStride), this.checkpoints.length - 1);
    const base = i * lineIndexStride;
    const before = this.checkpoints[i]!;
    if (offset === base) return before;
    return before + countNewlines(await this.src.readRange(base, offset));
  }
}
