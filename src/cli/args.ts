/** A usage error is one line on stderr and exit 2, before anything is opened or recorded (docs/contracts.md §6). */
import { parseArgs } from 'node:util';

export class UsageError extends Error {}

const TEAM_HELP = `
  --endpoint URL    S3-compatible server (default $AWS_ENDPOINT_URL; AWS itself when unset)
  --region NAME     (default $AWS_REGION, else us-east-1)
  --profile NAME    a profile of ~/.aws/config (default: the SDK's default credential chain)
  --path-style      path-style addressing (automatic for an IP address or localhost)`;

export const HELP: Readonly<Record<string, string>> = {
  main: `Usage: bounded-evidence <command> [flags]

Keeps the exact bytes of command output as evidence, shows a bounded observation, and
reads it back by handle: the same store, texts and handles as the VS Code extension.

  capture   run a command and keep its stdout, stderr and exit value
  read      read a recorded output by handle (lines, pattern or bytes)
  search    search every recorded output with one pattern (newest first)
  import    keep a file as evidence
  list      list the recorded runs
  stats     what the model was spared and what it read back (per command, agent, tool, day)
  verify    re-hash the bytes behind a handle
  publish   publish recorded runs to a team store (s3://BUCKET/PREFIX)
  mcp       serve the evidence tools over MCP (stdio, or Streamable HTTP with --http)
  hook      answer one agent hook event (stdin to stdout) by routing its terminal command
  keep      record the spooled output of a routed command (written by the hook)
  init      route the agents installed here (hooks and MCP registration; --dry-run, --uninstall)
  doctor    show per agent whether routing is on, its hook and storage, the last routed command

Storage: --storage DIR, else $BOUNDED_EVIDENCE_STORAGE (set in VS Code's terminals).
Team stores: list, read and search take --from s3://BUCKET/PREFIX or a name of
$BOUNDED_EVIDENCE_TEAM_STORES (NAME=s3://BUCKET/PREFIX,...); capture takes --publish.
Run "bounded-evidence <command> --help" for a command's flags.`,
  capture:
    `Usage: bounded-evidence capture [--storage DIR] [--workspace DIR] [--label TEXT] [--tee] ` +
    `[--timeout-ms N] -- COMMAND [ARG...]
       bounded-evidence capture [flags] --shell 'COMMAND LINE'

Runs the command (/bin/sh -c; with "--" the words are quoted for it) in its own process
group, keeps its complete stdout, stderr and exit value as evidence, prints what the
evidence_runCommand tool would show a model (small outputs whole, large ones as a
bounded observation with handles) and exits with the command's exit code
(124 timed out, 128+N killed by signal N, 130 interrupted, 127 could not start).

  --storage DIR     evidence storage folder (default $BOUNDED_EVIDENCE_STORAGE)
  --workspace DIR   folder the command runs in (default: the current directory)
  --label TEXT      the run's label (default: "cli run: <command>")
  --tee             also stream the output live to this terminal
  --timeout-ms N    kill the command's process group after N ms (default 600000)
  --shell STRING    the whole command line as one string
  --shell-file F    read the command line from file F (deleted after reading ` +
    `when it lies in <storage>/evidence/pending/)
  --hook-agent NAME, --hook-session ID
                    the run's source is that agent's session (an agent's own wrapper)
  --publish STORE   once the run is finished, publish it to s3://BUCKET/PREFIX (or a
                    configured team store); a failed publish is one line on stderr,
                    the run stays here and the exit code is still the command's
${TEAM_HELP}`,
  read: `Usage: bounded-evidence read HANDLE [--offset N] [--limit N] [--pattern RE] [--bytes START-END] [--storage DIR]
                           [--from STORE]

Prints what read_tool_output returns for the handle: a line window (--offset, --limit),
the lines matching a JavaScript regular expression (--pattern; 1-based line numbers), or
a byte window (--bytes START-END, half-open). Exit 1 when the read is refused.
A handle this storage did not mint is looked for in $BOUNDED_EVIDENCE_TEAM_STORES;
--from STORE reads that team store only (s3://BUCKET/PREFIX or a configured name).
${TEAM_HELP}`,
  search: `Usage: bounded-evidence search PATTERN [--tool NAME] [--run RUN_ID] [--limit N] [--storage DIR]
                                [--from STORE]

Prints what evidence_search returns: every kept output searched with a JavaScript regular
expression, newest first; per match its handle, line number, byte offset and the line, and
the total count. One time limit (searchTimeoutMs) covers the whole search: when it
passes, the answer has "complete": false and covers the newest calls searched so far.
Exit 1 when the search is refused. The stores of $BOUNDED_EVIDENCE_TEAM_STORES are
searched after this storage; --from STORE searches that team store's runs instead.
${TEAM_HELP}`,
  import: `Usage: bounded-evidence import FILE [--label TEXT] [--storage DIR]

Keeps FILE (any size, text or binary; streamed, never read whole) as evidence and prints
its run, handle, size and sha256 as JSON.`,
  list: `Usage: bounded-evidence list [--json] [--storage DIR] [--from STORE]

Lists the recorded runs of the storage, newest first (--json: one JSON array).
--from STORE lists a team store (its new runs fetched and indexed first); a run whose
published log does not match its digest is listed as refused (exit 1).
${TEAM_HELP}`,
  publish: `Usage: bounded-evidence publish RUN_ID... --to STORE [--storage DIR]
${TEAM_HELP}

Publishes finished runs of the storage to a team store: each blob the run's records name
is read back verified and put under its sha256 (with its manifest) unless the bucket has
it already, then the run's log, so a run is listed only once it is complete. A publish
stopped midway lists nothing and the next one finishes it. One line per run; exit 1 when
a run could not be published (it stays here).`,
  stats: `Usage: bounded-evidence stats [--since 7d] [--by agent|tool|command|day] [--json] [--limit N] [--storage DIR]

What the model was spared: per command word (default), agent, tool or day, the outputs
kept and their bytes, the bytes models were shown (answers and reads back by handle, to
the byte), outputs that lost bytes past a cap, and the bytes saved (output bytes minus
every byte shown; an output shown whole saves nothing). From the catalog, never a log.

  --since SPAN      12h, 7d, 2w, a date (2026-11-30), an ISO time, or all (default 30d)
  --by DIMENSION    agent, tool, command or day (default command)
  --json            the same numbers as one JSON object
  --limit N         groups shown, 1-1000 (default 50)`,
  verify: `Usage: bounded-evidence verify HANDLE [--storage DIR] [--from STORE]

Re-hashes every byte behind HANDLE against its record. Exit 0 when they match, 1 when not.
A handle this storage did not mint is looked for in $BOUNDED_EVIDENCE_TEAM_STORES;
--from STORE verifies it in that team store only.
${TEAM_HELP}`,
  mcp: `Usage: bounded-evidence mcp [--storage DIR] [--workspace DIR] [--tenant T | --global] [--http [PORT]] [limits]

The MCP server (same as node dist/mcp.js; run with --help for every flag).`,
  hook:
    `Usage: bounded-evidence hook [--storage DIR] [--agent NAME] [--allow] ` +
    `[--record-post-tool-use] [--large-result-bytes N]

Reads one agent hook event (JSON) on stdin and answers on stdout. A terminal command
(PreToolUse on run_in_terminal or Bash, BeforeTool on run_shell_command) is rewritten to
run as it is, in the agent's own shell, with its stdout and stderr kept in the storage:
an output of at most the large-result size comes back as it was, a larger one as a
bounded observation with handles. Anything else, and everything when no storage is
configured, gets no answer (exit 0): the agent goes on as if there were no hook.

  --storage DIR              evidence storage folder (default $BOUNDED_EVIDENCE_STORAGE)
  --agent NAME               agent recorded with the run (default: from the tool name)
  --allow                    also answer permissionDecision "allow" (skips the agent's confirmation)
  --record-post-tool-use     keep PostToolUse responses over the large-result size as evidence
  --large-result-bytes N     that size (default 4096)`,
  init:
    `Usage: bounded-evidence init [--agent NAME ...|--all] [--global|--project] [--dry-run] ` +
    `[--uninstall] [--storage DIR] [--record-post-tool-use]

Routes the agents installed here through evidence: writes each one's hook configuration and
MCP registration, merged into the files already there (never clobbering: a file that cannot
be merged into is left as it was, with a sentence), idempotent, one line per agent saying what
was done and how to undo it. --uninstall gives back the files exactly as they were (a file
init created is removed again; a file changed since loses only our entries).

  --agent NAME   one of the agents listed below; repeatable (default: those detected)
  --all          every known agent, detected or not
  --project      this folder's configuration (default when the agent has one)
  --global       the user's configuration (every project)
  --dry-run      print what each file would contain; write nothing
  --uninstall    remove what init wrote
  --storage DIR  the evidence storage baked into project hooks and MCP registrations
                 (default $BOUNDED_EVIDENCE_STORAGE, or the one VS Code uses for this folder)
  --record-post-tool-use  also keep other tools' results over 4096 bytes (the agent's after-tool hook)`,
  doctor: `Usage: bounded-evidence doctor [--storage DIR]

Per agent: detected or not, routing on or off in each scope (the files checked), which hook
command and storage it uses, and the last command it routed into the storage.`,
  keep: `Usage: bounded-evidence keep SPOOL STATUS WHOLE
       bounded-evidence keep --quiet SPOOL STATUS

The second half of a routed command, written into it by the hook: records the command's
spooled stdout and stderr (SPOOL = <storage>/evidence/spool/<id>) with its exit STATUS as
one run and removes the spool. An output of at most WHOLE bytes is printed as the command
wrote it; a larger one as the bounded observation. Exits with STATUS. If the evidence cannot
be kept, it prints the output as the command wrote it and one line saying so. --quiet (the
shim's, for an output it already printed) records and prints nothing.`,
};

type FlagSpec = Record<string, { type: 'string' | 'boolean' }>;

export function parseFlags<T extends FlagSpec>(
  argv: readonly string[],
  spec: T,
  positionals: { min: number; max: number; name: string },
): { values: { [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string }; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...spec, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: true,
    });
  } catch (e) {
    // parseArgs's sentences are one line and name the flag.
    throw new UsageError(e instanceof Error ? e.message.split('\n')[0]! : String(e));
  }
  const pos = parsed.positionals;
  if (
    !(parsed.values as Record<string, unknown>).help &&
    (pos.length < positionals.min || pos.length > positionals.max)
  ) {
    throw new UsageError(
      positionals.max === 0
        ? `unexpected argument: ${pos[0]!.slice(0, 80)}`
        : pos.length < positionals.min
          ? `missing ${positionals.name}`
          : `one ${positionals.name} expected, got ${pos.length}`,
    );
  }
  return { values: parsed.values as never, positionals: pos };
}

/** Before a `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export function wholeNumber(flag: string, raw: string | undefined, min = 0): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw)) || Number(raw) < min)
    throw new UsageError(`--${flag} must be a whole number${min > 0 ? ` of at least ${min}` : ''}`);
  return Number(raw);
}
