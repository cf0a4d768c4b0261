/**
 * The shim `BOUNDED_EVIDENCE_CLI` names (docs/architecture.md §2.4): a small POSIX sh script in the extension's global
 * storage that runs the installed extension's dist/cli.js with the Node the editor itself runs on, so the command line
 * works on a machine with no Node on PATH, and rewritten commands never depend on PATH. The extension rewrites it on
 * every activation; between an update and the next activation the recorded paths may be gone, so it falls back to the
 * newest installed copy of the extension beside the recorded one, and to `node` on PATH.
 */
import { ROUTES } from './agents/index.js';
import { SPOOL_STDERR, SPOOL_STDOUT } from './rewrite.js';
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
const HOOK_PREFILTER = [
  'if [ "${1-}" = hook ]; then',
  '  case " $* " in',
  '    *" --record-post-tool-use "*) ;;',
  '    *)',
  '      BE_EVENT=$(cat)',
  `      case $BE_EVENT in ${PREFILTER_PATTERNS.map((p) => `*'${p}'*`).join('|')}) ;; *) exit 0 ;; esac`,
  '      exec 0<<BE_EVENT_END',
  '$BE_EVENT',
  'BE_EVENT_END',
  '      unset BE_EVENT ;;',
  '  esac',
  'fi',
];

/**
 * The `keep SPOOL STATUS WHOLE` of the shim (src/core/reach/shim.ts), in sh: a small output is
 * printed as it was with `cat` and recorded by `<node cli> keep --quiet` in the background (the
 * command waits for no Node; `( … & )` keeps an interactive shell from printing a job line), a large
 * one goes to `<node cli> keep` in the foreground (the observation). Exits with STATUS whatever
 * happens: the routed command's status is the command's. `$NODE`, `$BE_FLAGS` and `$CLI` are the shim's.
 */
const SHIM_KEEP_LINES: readonly string[] = [
  'if [ "${1-}" = keep ] && [ $# -eq 4 ]; then',
  '  BE_D=$2; BE_S=$3',
  '  [ -x "$NODE" ] || NODE=node',
  `  if [ "$(( $(wc -c <"$BE_D/${SPOOL_STDOUT}") + $(wc -c <"$BE_D/${SPOOL_STDERR}") ))" -le "$4" ] 2>/dev/null; then`,
  `    cat "$BE_D/${SPOOL_STDOUT}"; cat "$BE_D/${SPOOL_STDERR}" >&2`,
  '    ( "$NODE" $BE_FLAGS "$CLI" keep --quiet "$BE_D" "$BE_S" </dev/null >/dev/null 2>&1 & )',
  '  else',
  // keep prints the observation, or the output itself when the evidence cannot be kept; with no Node at all, sh prints
  // it.
  '  if [ -x "$NODE" ] || command -v "$NODE" >/dev/null 2>&1; then "$NODE" $BE_FLAGS "$CLI" keep "$BE_D" "$BE_S" "$4"',
  `  else cat "$BE_D/${SPOOL_STDOUT}"; cat "$BE_D/${SPOOL_STDERR}" >&2; rm -rf "$BE_D"; ` +
    `echo 'bounded-evidence: evidence not kept (no Node to record it); the command ran unrouted' >&2; fi`,
  '  fi',
  '  exit "$BE_S"',
  'fi',
];

/**
 * Flags the shim starts plain Node with. A capture streams its output through 64 KiB buffers that
 * die young; Node 24's V8 lets the young generation grow to 32 MiB a semi-space under that load
 * (a 1 GB capture peaked ~70 MiB above a one-line one, against ~35 MiB with 1 MiB), at no cost in
 * time measured (4.60 vs 4.62 s for 1 GB). Not passed to Electron run as Node.
 */
export const NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/** The script's text. Every path is single-quoted (injection-proof whatever the folder names). */
export function shimScript(i: ShimInputs): string {
  const q = quoteShellWord;
  return [
    '#!/bin/sh',
    '# Bounded Evidence command line, written by the extension on every start: runs its dist/cli.js',
    "# with the editor's own Node. Arguments pass through untouched.",
    `CLI=${q(i.cli)}`,
    'if [ ! -f "$CLI" ]; then',
    `  for c in ${q(i.extensionsDir)}/${q(i.folderPrefix)}*/dist/cli.js; do [ -f "$c" ] && CLI=$c; done`,
    'fi',
    // The editor's copy is gone (the extension removed): a hook answers nothing, so the agent runs its call as written.
    `[ -f "$CLI" ] || { [ "\${1-}" = hook ] && exit 0; ` +
      `echo 'bounded-evidence: the command line of the editor is gone ` +
      `(the extension was removed or moved)' >&2; exit 127; }`,
    // Started for a hook as the portable finder starts it (not through the variable): routed commands name this script.
    'case "${1-}" in hook) [ -n "${BOUNDED_EVIDENCE_CLI-}" ] || ' +
      '{ BOUNDED_EVIDENCE_CLI=$0; export BOUNDED_EVIDENCE_CLI; } ;; esac',
    // The hook has a small bundle of its own beside cli.js: it runs before every agent command.
    'case "${1-}" in hook) [ -f "${CLI%cli.js}hook.js" ] && CLI="${CLI%cli.js}hook.js" ;; esac',
    ...HOOK_PREFILTER,
    `BOUNDED_EVIDENCE_HOME=${q(i.home)}`,
    'export BOUNDED_EVIDENCE_HOME',
    `NODE=${q(i.node)}`,
    // A routed command's second half (docs/contracts.md §6.1): a small output needs no Node.
    ...(i.electron
      ? ['[ "${1-}" = keep ] && { ELECTRON_RUN_AS_NODE=1; export ELECTRON_RUN_AS_NODE; }', 'BE_FLAGS=']
      : [`BE_FLAGS='${NODE_FLAGS.join(' ')}'`]),
    ...SHIM_KEEP_LINES,
    'if [ -x "$NODE" ]; then',
    ...(i.electron
      ? [
          // The command line puts the variable back as it was before running anything (src/cli/main.ts).
          '  BOUNDED_EVIDENCE_ELECTRON_WAS="${ELECTRON_RUN_AS_NODE-}"',
          '  export BOUNDED_EVIDENCE_ELECTRON_WAS',
          '  ELECTRON_RUN_AS_NODE=1 exec "$NODE" "$CLI" "$@"',
        ]
      : [`  exec "$NODE" ${NODE_FLAGS.join(' ')} "$CLI" "$@"`]),
    'fi',
    // The fallback: whatever Node is on PATH (the command line itself refuses one older than 22.14 in one line).
    'command -v node >/dev/null 2>&1 || { echo "bounded-evidence needs Node 22.14 or newer ' +
      '(none found: the editor\'s Node is gone and no node is on PATH)" >&2; exit 127; }',
    `exec node ${NODE_FLAGS.join(' ')} "$CLI" "$@"`,
    '',
  ].join('\n');
}
