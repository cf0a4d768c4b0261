/**
 * `hook` alone (docs/architecture.md §2.4): an agent starts the hook for every tool call, so this bundle holds none
 * of the stores; a recording (an after-tool event) loads dist/cli.js beside it.
 */
import * as path from 'node:path';
import { nodeVersionProblem } from '../core/nodeVersion.js';
import { HELP, wantsHelp } from './args.js';
import { hook, type RecordResponse } from './hook.js';
import { hookIo } from './io.js';

const recordViaCli: RecordResponse = (storage, d) => {
  // The full command line, loaded only for these events.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, see above
  const cli = require(path.join(__dirname, 'cli.js')) as { recordResponse: RecordResponse };
  return cli.recordResponse(storage, d);
};

if (require.main === module) {
  const argv = process.argv.slice(2);
  // The shim passes the subcommand's name through.
  const rest = argv[0] === 'hook' ? argv.slice(1) : argv;
  const self = [process.execPath, path.join(__dirname, 'cli.js')];
  // On a Node too old for the command line, routing would hand the agent a failing command: answer nothing, and say
  // why in one line.
  const tooOld = nodeVersionProblem(process.versions.node);
  if (wantsHelp(rest)) process.stdout.write(`${HELP.hook}\n`);
  else if (tooOld !== undefined) process.stderr.write(`${tooOld}; the tool runs unrouted\n`);
  else
    void hook(rest, hookIo(), self, recordViaCli).then(
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
