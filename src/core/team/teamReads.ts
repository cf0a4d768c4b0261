/**
 * This machine's store first, then each team store (docs/contracts.md §7.2); a handle none knows gets the one
 * access-denied sentence, telling a model nothing of which stores were asked.
 */
import { EvidenceError } from '../errors.js';
import type { ReadOptions, ReadScope, ReadToolOutputArgs, ReadToolOutputResult, RunStoreApi } from '../runs/types.js';
import type { TeamStore } from './teamStore.js';

export type HandleReader = Pick<RunStoreApi, 'readToolOutput'>;

export function readThrough(local: HandleReader, teams: readonly TeamStore[]): HandleReader {
  if (teams.length === 0) return local;
  return {
    async readToolOutput(
      args: ReadToolOutputArgs,
      scope?: ReadScope,
      options?: ReadOptions,
    ): Promise<ReadToolOutputResult> {
      try {
        return await local.readToolOutput(args, scope, options);
      } catch (e) {
        if (!(e instanceof EvidenceError) || e.code !== 'accessDenied') throw e;
        for (const team of teams) {
          try {
            return await team.readToolOutput(args, scope, options);
          } catch (t) {
            if (!(t instanceof EvidenceError) || t.code !== 'accessDenied') throw t;
          }
        }
        throw e;
      }
    },
  };
}
