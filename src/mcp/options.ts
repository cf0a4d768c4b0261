/**
 * Limits default to the editor's settings (package.json), so an agent outside the editor sees the same bounded
 * observations as one inside it.
 */
import { parseArgs } from 'node:util';
import { MCP_TOOL_NAMES } from '../node/packageJson.js';
import { flagOf, INTEGER_SETTINGS, type DeclaredSettings } from '../node/resolveSettings.js';

export interface EvidenceMcpOptions {
  /** Evidence lives in `<storageDir>/evidence`. */
  readonly storageDir: string;
  readonly workspaceFolder: string;
  /** Default: the one stored, else the editor's derivation. */
  readonly tenant?: string;
  readonly global?: boolean;
  readonly settings?: Partial<DeclaredSettings>;
  readonly denyPatterns?: readonly string[];
  readonly progressIntervalMs?: number;
}

function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}

/** From the one table, so `--help` cannot list fewer than the server serves. */
const SERVED = `${MCP_TOOL_NAMES.slice(0, -1).join(', ')} and ${MCP_TOOL_NAMES[MCP_TOOL_NAMES.length - 1]!}`;

const ABOUT =
  `Serves ${SERVED} over MCP (stdio, or Streamable HTTP with --http), on the ` +
  `same storage as the Bounded Evidence extension: handles minted here are ` +
  `readable in the editor and the other way round.`;

export const USAGE =
  `Usage: node dist/mcp.js --storage <dir> [--workspace <folder>] ` +
  `[--tenant <t> | --global] [--http [PORT]] [limits]

${wrap(ABOUT, 88)}

  --storage <dir>        the extension's workspace storage folder (evidence lives in <dir>/evidence)
  --workspace <folder>   folder commands run in and files are read from (default: the current directory)
  --tenant <t>           tenant of the stored evidence (default: the one stored, else derived as the editor does)
  --global               derive the tenant of the editor's global storage (no folder open)
  --http [PORT]          serve Streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio (default
                         PORT: a free one), stateless, for several clients at once; every request
                         needs "Authorization: Bearer <token>", a token made at each start, printed
                         once on stderr and written with the URL to <dir>/mcp-http.json (mode 0600)
  --deny-pattern <glob>  a secret-file pattern added to the built-in deny list (repeatable;
                         as the boundedEvidence.readFile.denyPatterns setting)
  --max-inline-bytes N   --preview-bytes N   --max-range-bytes N   --large-result-bytes N
  --capture-cap-bytes N (0: no cap)  --command-timeout-ms N  --search-timeout-ms N
  --preservation best_effort|required
                         limits, as the boundedEvidence.* settings (same defaults and ranges)
  --help                 this text`;

export type ParsedArgs =
  | { readonly help: true }
  | { readonly help: false; readonly options: EvidenceMcpOptions; readonly http?: { readonly port: number } };

/** parseArgs has no flag whose value is optional. */
function takeHttp(argv: readonly string[]): { rest: string[]; http?: { port: number } } {
  const rest: string[] = [];
  let http: { port: number } | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg !== '--http' && !arg.startsWith('--http=')) {
      rest.push(arg);
      continue;
    }
    let raw = arg.startsWith('--http=') ? arg.slice('--http='.length) : undefined;
    if (raw === undefined && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('-')) raw = argv[++i];
    if (raw !== undefined && (!/^[0-9]{1,5}$/.test(raw) || Number(raw) > 65535))
      throw new Error('--http PORT must be a whole number from 0 to 65535');
    http = { port: raw === undefined ? 0 : Number(raw) };
  }
  return http ? { rest, http } : { rest };
}

/** The caller prints `USAGE`. */
export function parseCommandLine(argv: readonly string[], cwd: string): ParsedArgs {
  const limitFlags = Object.fromEntries(
    [...INTEGER_SETTINGS, 'preservation'].map((k) => [flagOf(k), { type: 'string' as const }]),
  );
  const { rest, http } = takeHttp(argv);
  const { values: parsed } = parseArgs({
    args: rest,
    strict: true,
    allowPositionals: false,
    options: {
      storage: { type: 'string' },
      workspace: { type: 'string' },
      tenant: { type: 'string' },
      global: { type: 'boolean' },
      help: { type: 'boolean' },
      'deny-pattern': { type: 'string', multiple: true },
      ...limitFlags,
    },
  });
  // The limit flags are built from a list, which parseArgs cannot type: read them by name.
  const values: Record<string, string | boolean | string[] | undefined> = parsed;
  if (values.help) return { help: true };
  const storage = values.storage;
  if (typeof storage !== 'string' || storage === '') throw new Error('--storage <dir> is required');
  if (values.tenant !== undefined && values.global) throw new Error('--tenant and --global exclude each other');
  const settings: Record<string, number | string> = {};
  for (const key of INTEGER_SETTINGS) {
    const raw = values[flagOf(key)];
    if (typeof raw !== 'string') continue;
    if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
      throw new Error(`--${flagOf(key)} must be a whole number`);
    settings[key] = Number(raw);
  }
  if (typeof values.preservation === 'string') settings.preservation = values.preservation;
  const workspace = typeof values.workspace === 'string' && values.workspace !== '' ? values.workspace : cwd;
  return {
    help: false,
    options: {
      storageDir: storage,
      workspaceFolder: workspace,
      ...(typeof values.tenant === 'string' ? { tenant: values.tenant } : {}),
      ...(values.global ? { global: true } : {}),
      ...(Array.isArray(values['deny-pattern']) ? { denyPatterns: values['deny-pattern'] } : {}),
      settings: settings as Partial<DeclaredSettings>,
    },
    ...(http ? { http } : {}),
  };
}
