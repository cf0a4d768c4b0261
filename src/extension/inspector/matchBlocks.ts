/**
 * Blocks of a pattern's matches, kept per handle and pattern (a handle's bytes never change,
 * so neither do its matches): the first Find reads up to 1,000 at once and the panel's next
 * pages are answered from the block without scanning the output again.
 */
import type { RunStoreApi } from '../../core/index.js';
import { Lru } from '../../core/lru.js';
import type { MatchDto } from '../../shared/protocol.js';

/** Matches read per block (the core's most per request). */
const matchBlockSize = 1000;
/** Characters a block may hold: 1,000 matches of up to 500 characters (longer lines make a shorter block). */
const matchBlockChars = 500_000;

/** A block of a pattern's matches: `matches[i]` is match `offset + i`. */
export interface MatchBlock {
  readonly offset: number;
  readonly total: number;
  readonly matches: readonly MatchDto[];
  readonly binary: boolean;
}

/** The blocks one panel holds. */
export class MatchBlocks {
  private readonly blocks: Lru<string, Promise<MatchBlock>>;

  constructor(
    private readonly store: () => Promise<RunStoreApi>,
    maxEntries: number,
  ) {
    this.blocks = new Lru({ maxEntries });
  }

  /** Forgets every block (another store). */
  clear(): void {
    this.blocks.clear();
  }

  /**
   * Matches `[offset, offset + limit)` of a pattern, from a block of up to 1,000 read at
   * once and kept (a handle's bytes never change, so neither do its matches): the first
   * Find scans the whole output anyway to count them, and the next pages (50 a page in
   * the panel) are then answered without scanning it again (docs/contracts.md §3.4, "Speed").
   */
  async get(handle: string, pattern: string, offset: number, limit: number): Promise<MatchBlock> {
    const key = `${handle}\u0000${pattern}`;
    const held = this.blocks.get(key);
    if (held) {
      const b = await held.catch(() => undefined);
      if (b && offset >= b.offset && Math.min(offset + limit, b.total) <= b.offset + b.matches.length) return b;
    }
    const p = (async (): Promise<MatchBlock> => {
      const store = await this.store();
      // Room for the whole block (the model's 10,000-character cap would keep ~100 matches of
      // a build log's lines, and each later page would scan the output again).
      const r = await store.readToolOutput(
        { handle, pattern, offset, limit: Math.max(limit, matchBlockSize) },
        undefined,
        { maxContentChars: matchBlockChars },
      );
      const entries = r.content.length > 0 ? r.content.split('\n') : [];
      const matches = (r.matches ?? []).map((m, i) => {
        const entry = entries[i] ?? '';
        const prefix = `${m.line_number}:`;
        return {
          lineNumber: m.line_number,
          byteOffset: m.byte_offset,
          text: entry.startsWith(prefix) ? entry.slice(prefix.length) : entry,
        };
      });
      return { offset, total: r.total_matches ?? 0, matches, binary: r.binary };
    })();
    this.blocks.set(key, p);
    p.catch(() => this.blocks.delete(key));
    return await p;
  }
}
