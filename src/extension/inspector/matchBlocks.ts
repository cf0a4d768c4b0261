/**
 * A handle's bytes never change, so neither do its matches: the panel's later pages are answered without scanning
 * again.
 */
import type { RunStoreApi } from '../../core/index.js';
import { Lru } from '../../core/lru.js';
import type { MatchDto } from '../../shared/protocol.js';

const matchBlockSize = 1000;
/** Longer lines make a shorter block. */
const matchBlockChars = 500_000;

export interface MatchBlock {
  readonly offset: number;
  readonly total: number;
  readonly matches: readonly MatchDto[];
  readonly binary: boolean;
}

export class MatchBlocks {
  private readonly blocks: Lru<string, Promise<MatchBlock>>;

  constructor(
    private readonly store: () => Promise<RunStoreApi>,
    maxEntries: number,
  ) {
    this.blocks = new Lru({ maxEntries });
  }

  clear(): void {
    this.blocks.clear();
  }

  /** The first Find scans the whole output anyway to count them (docs/contracts.md §3.4, "Speed"). */
  async get(handle: string, pattern: string, offset: number, limit: number): Promise<MatchBlock> {
    const key = `${handle}\u0000${pattern}`;
    const held = this.blocks.get(key);
    if (held) {
      const b = await held.catch(() => undefined);
      if (b && offset >= b.offset && Math.min(offset + limit, b.total) <= b.offset + b.matches.length) return b;
    }
    const p = (async (): Promise<MatchBlock> => {
      const store = await this.store();
      // Room for the whole block: the model's cap would keep ~100 matches, and each later page would scan again.
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
