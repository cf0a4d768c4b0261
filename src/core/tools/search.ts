/**
 * `evidence_search` (docs/contracts.md §2.11): fitted under 8 KiB by keeping fewer matches; the search runs once and
 * `total_matches` stays the full count.
 */
import { DEFAULT_SEARCH_LIMIT, searchAllOutputs, type SearchAllResult } from '../runs/reading/searchAll.js';
import { EvidenceError } from '../errors.js';
import { mergeSearches } from '../team/teamSearch.js';
import { checkShape, EvidenceToolNames, type Checked } from './inputs.js';
import { fitsModel } from './modelText.js';
import { readError } from './readToolOutput.js';
import type { EvidenceToolDef, ToolInputSchema } from './toolDef.js';

export interface SearchInput {
  pattern: string;
  tool?: string;
  run?: string;
  limit?: number;
}

const schema = {
  type: 'object',
  properties: {
    pattern: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: 'JavaScript regular expression tested against each line of every recorded output.',
    },
    tool: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      description: 'Only outputs of calls of this tool (e.g. evidence_runCommand).',
    },
    run: { type: 'string', minLength: 1, maxLength: 128, description: 'Only outputs of this run id.' },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      description: 'Matches to return. Default 20; total_matches counts them all.',
    },
  } satisfies Record<keyof SearchInput, object>,
  required: ['pattern'],
  additionalProperties: false,
} as const satisfies ToolInputSchema;

/** `searchAllOutputs` checks the pattern and limit with its own sentences. */
export function checkSearch(v: unknown): Checked<SearchInput> {
  const s = checkShape(v, EvidenceToolNames.search, schema);
  if (!s.ok) return s;
  const { pattern, tool, run, limit } = s.value;
  if (typeof pattern !== 'string') return { ok: false, error: 'pattern must be a string' };
  if (tool !== undefined && typeof tool !== 'string') return { ok: false, error: 'tool must be a string' };
  if (run !== undefined && typeof run !== 'string') return { ok: false, error: 'run must be a string' };
  if (limit !== undefined && typeof limit !== 'number')
    return { ok: false, error: 'limit must be an integer from 1 to 100' };
  return {
    ok: true,
    value: {
      pattern,
      ...(tool !== undefined ? { tool: tool as string } : {}),
      ...(run !== undefined ? { run: run as string } : {}),
      ...(limit !== undefined ? { limit: limit as number } : {}),
    },
  };
}

function fitSearchReply(r: SearchAllResult): string {
  let keep = r.matches.length;
  for (;;) {
    const text = JSON.stringify({
      ...r,
      returned: keep,
      truncated: r.truncated || keep < r.matches.length,
      matches: r.matches.slice(0, keep),
    });
    if (fitsModel(text) || keep === 0) return text;
    keep = Math.floor(keep / 2);
  }
}

/** A search opens no run. */
export const searchTool: EvidenceToolDef<typeof EvidenceToolNames.search, SearchInput> = {
  name: EvidenceToolNames.search,
  inputSchema: schema,
  check: checkSearch,
  hints: { readOnlyHint: true, openWorldHint: false },
  surfaces: { lm: true, mcp: true, participant: true },
  progress: (input) => `Searching every output for ${String(input?.pattern ?? '').slice(0, 80)}`,
  async perform(ctx, input) {
    try {
      const results = [await searchAllOutputs(ctx.runs, input, { signal: ctx.signal })];
      for (const runs of (await ctx.searchAlso?.()) ?? []) {
        // A team store that cannot answer adds nothing.
        const more = await searchAllOutputs(runs, input, { signal: ctx.signal }).catch((e: unknown) => {
          if (e instanceof EvidenceError) return undefined;
          throw e;
        });
        if (more) results.push(more);
      }
      return {
        text: fitSearchReply(mergeSearches(results, input.limit ?? DEFAULT_SEARCH_LIMIT)),
        status: 'completed',
      };
    } catch (e) {
      return { text: readError(e, (x) => ctx.log('evidence_search failed', x)), status: 'failed' };
    }
  },
};
