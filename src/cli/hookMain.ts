/**
 * Entry point of dist/hook.js: `hook` alone (docs/architecture.md §2.4). An agent starts the hook
 * for every tool call it is registered on, so its cost is the routed command's cost: this bundle
 * holds the decision, the syntax check and the spool, and none of the stores (dist/cli.js loads
 * ~1 MB of them: ~70 ms more per call here). A `PostToolUse` response to record, the one case that
 * needs the stores, loads dist/cli.js beside it then. Same flags, same answers as `cli.js hook`.
 */
import * as path from 'node:path';
import { nodeVersionProblem } from '../core/nodeVersion.js';
import { HELP, wantsHelp } from './args.js';
import { hook, type RecordResponse } from './hook.js';
import { processIo } from './io.js';

const recordViaCli: RecordResponse = async (storage, d) => {
  // The full command line, loaded only for this rare event.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, see above
  const cli = require(path.join(__dirname, 'cli.js')) as { recordResponse: RecordResponse };
  await cli.recordResponse(storage, d);
};

if (require.main === module) {
  const argv = process.argv.slice(2);
  // `hook.js hook …` and `hook.js …` alike (the shim passes the subcommand's name through).
  const rest = argv[0] === 'hook' ? argv.slice(1) : argv;
  const self = [process.execPath, path.join(__dirname, 'cli.js')];
  // On a Node too old for the command line (a fallback `node` on PATH), routing would hand the agent a command
  // that fails: the hook answers nothing, so the tool runs unrouted, and says why in one line.
  const tooOld = nodeVersionProblem(process.versions.node);
  if (wantsHelp(rest)) process.stdout.write(`${HELP.hook}\n`);
  else if (tooOld !== undefined) process.stderr.write(`${tooOld}; the tool runs unrouted\n`);
  else
    void hook(rest, processIo(), self, recordViaCli).then(
      (code) => {
        process.exitCode = code;
      },
      (e: unknown) => {
        process.stderr.write(
          `bounded-evidence hook: ${e instanceof Error ? e.message : String(e)}; the tool runs unrouted\n`,
        );
        process.exitCode = 0;
      },
    );
}
