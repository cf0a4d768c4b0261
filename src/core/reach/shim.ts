/**
 * The shim `BOUNDED_EVIDENCE_CLI` names (docs/architecture.md §2.4): it runs dist/cli.js with the editor's own Node,
 * so the command line works without Node on PATH. After an update the recorded paths may be gone, so it falls back to
 * the newest installed copy, then `node` on PATH.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ROUTES } from './agents/index.js';
import { quoteShellWord } from './shellQuote.js';

export interface ShimInputs {
  /** Electron run as Node, or the server's node. */
  readonly node: string;
  readonly electron: boolean;
  readonly cli: string;
  readonly extensionsDir: string;
  readonly folderPrefix: string;
  /** Exported as BOUNDED_EVIDENCE_HOME: the hook finds workspaces.json there. */
  readonly home: string;
}

/**
 * VS Code runs a hook on every tool call, so an event holding none of the routed tools' fragments is answered by the
 * shell alone, without starting Node.
 */
export const PREFILTER_PATTERNS: readonly string[] = [...new Set(ROUTES.map((r) => r.prefilter))];

/** Put into the bundles by esbuild.js, read beside this file from the sources. */
declare const BOUNDED_EVIDENCE_SHIM_SH: string | undefined;
function shimSource(): string {
  return typeof BOUNDED_EVIDENCE_SHIM_SH === 'string'
    ? BOUNDED_EVIDENCE_SHIM_SH
    : readFileSync(path.join(__dirname, 'shim.sh'), 'utf8');
}

/**
 * A capture's buffers die young, and V8 grows the young generation under that load; a small semi-space keeps a large
 * capture's peak down at no measured cost in time (docs/measured.md). Not passed to Electron.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/**
 * The npm package's `bounded-evidence` (esbuild.js puts it beside the package's cli.js): the same script naming no
 * path, so the hook starts the small hook bundle, other tools' events are answered without Node, and a routed
 * command's small output is given back by sh, as in VS Code's terminals. It finds cli.js beside itself, Node on PATH.
 */
export function packageShimScript(): string {
  return shimScript({ node: 'node', electron: false, cli: '', extensionsDir: '', folderPrefix: '', home: '' });
}

/** The script's text: shim.sh with its `@NAME@` values filled in, each single-quoted (injection-proof). */
export function shimScript(i: ShimInputs): string {
  // The sh prefilter matches each fragment as a literal: no blank, quote or pattern byte.
  for (const p of PREFILTER_PATTERNS)
    if (!/^[^\s'*?[\]\\]+$/.test(p)) throw new Error(`a prefilter fragment sh cannot hold: ${p}`);
  const values: Record<string, string> = {
    CLI: i.cli,
    EXTENSIONS: i.extensionsDir,
    PREFIX: i.folderPrefix,
    ELECTRON: i.electron ? '1' : '0',
    NODE_FLAGS: NODE_FLAGS.join(' '),
    PREFILTER: PREFILTER_PATTERNS.join(' '),
    HOME: i.home,
    NODE: i.node,
  };
  return shimSource().replace(/^([A-Z_]+)=@([A-Z_]+)@$/gm, (_line, name: string, key: string) => {
    const v = values[key];
    if (v === undefined) throw new Error(`shim.sh names a value shim.ts does not know: @${key}@`);
    return `${name}=${quoteShellWord(v)}`;
  });
}
