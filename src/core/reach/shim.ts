/**
 * The shim `BOUNDED_EVIDENCE_CLI` names (docs/architecture.md §2.4): a small POSIX sh script in the extension's global
 * storage that runs the installed extension's dist/cli.js with the Node the editor itself runs on, so the command line
 * works on a machine with no Node on PATH, and rewritten commands never depend on PATH. The extension rewrites it on
 * every activation; between an update and the next activation the recorded paths may be gone, so it falls back to the
 * newest installed copy of the extension beside the recorded one, and to `node` on PATH.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ROUTES } from './agents/index.js';
import { quoteShellWord } from './shellQuote.js';

/** What the shim is written with. */
export interface ShimInputs {
  /** The editor's Node (`process.execPath`: Electron run as Node, or the server's node). */
  readonly node: string;
  /** True when `node` is Electron and needs `ELECTRON_RUN_AS_NODE=1`. */
  readonly electron: boolean;
  /** dist/cli.js of the running extension. */
  readonly cli: string;
  /** The folder holding installed extensions, and the prefix of this extension's folders in it (`publisher.name-`). */
  readonly extensionsDir: string;
  readonly folderPrefix: string;
  /** The extension's global storage (exported as BOUNDED_EVIDENCE_HOME: the hook finds workspaces.json there). */
  readonly home: string;
}

/**
 * What the prefilter looks for: each routed tool's fragment of its event (src/core/reach/agents/, `prefilter`). VS Code
 * runs a hook on every tool call (its hook files take no matcher), so an event that holds none of them is answered
 * (nothing) by the shell alone, in ~2 ms, without starting Node; only with `--record-post-tool-use` does every event
 * reach the command line.
 */
export const PREFILTER_PATTERNS: readonly string[] = [...new Set(ROUTES.map((r) => r.prefilter))];

/** The script (src/core/reach/shim.sh): put into the bundles by esbuild.js, read beside this file from the sources. */
declare const BOUNDED_EVIDENCE_SHIM_SH: string | undefined;
function shimSource(): string {
  return typeof BOUNDED_EVIDENCE_SHIM_SH === 'string'
    ? BOUNDED_EVIDENCE_SHIM_SH
    : readFileSync(path.join(__dirname, 'shim.sh'), 'utf8');
}

/**
 * Flags the shim starts plain Node with. A capture streams its output through 64 KiB buffers that
 * die young; Node 24's V8 lets the young generation grow to 32 MiB a semi-space under that load
 * (a 1 GB capture peaked ~70 MiB above a one-line one, against ~35 MiB with 1 MiB), at no cost in
 * time measured (4.60 vs 4.62 s for 1 GB). Not passed to Electron run as Node.
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
  // The sh prefilter splits the list on spaces and matches each fragment as a literal: no blank, quote or pattern byte.
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
