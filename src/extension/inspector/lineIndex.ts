/**
 * A sparse line index, so the panel shows exact positions without holding the artifact in memory. Lines follow
 * docs/contracts.md §2.5.
 */
import { countNewlines, type HandleSource } from '../../core/index.js';

/** The integrity chunk size, so reads stay chunk-aligned. */
export const lineIndexStride = 64 * 1024;

export type LineSource = Pick<HandleSource, 'byteCount' | 'readRange' | 'stream'> &
  Partial<Pick<HandleSource, 'newlineIndex' | 'lineCount'>>;

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

  /** Memory is one number per 64 KiB. */
  static async build(src: LineSource): Promise<LineIndex> {
    // The newline counts recorded at write time give the checkpoints without reading a byte.
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

  private async afterNewline(k: number): Promise<number> {
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

  async lineStart(line: number): Promise<number | undefined> {
    if (line >= this.lineCount) return undefined;
    return line === 0 ? 0 : await this.afterNewline(line);
  }

  async linesRange(offset: number, count: number): Promise<{ start: number; end: number; lines: number } | undefined> {
    const start = await this.lineStart(offset);
    if (start === undefined) return undefined;
    const stop = offset + count;
    const end = stop <= this.totalNewlines ? await this.afterNewline(stop) : this.src.byteCount;
    return { start, end, lines: Math.min(count, this.lineCount - offset) };
  }

  /** `offset` may equal the size. */
  async lineAt(offset: number): Promise<number> {
    const i = Math.min(Math.floor(offset / lineIndexStride), this.checkpoints.length - 1);
    const base = i * lineIndexStride;
    const before = this.checkpoints[i]!;
    if (offset === base) return before;
    return before + countNewlines(await this.src.readRange(base, offset));
  }
}
