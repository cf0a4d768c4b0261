/**
 * Entry point of the `bounded-evidence` command (docs/architecture.md §2.4); a usage error is one line on stderr and
 * exit 2, before anything is recorded (docs/contracts.md §6).
 */
import { HELP, UsageError, wantsHelp } from './args.js';
import { capture } from './capture.js';
import { importFile, list, read, search, verify } from './evidence.js';
import { hook } from './hook.js';
import { doctor, init, initHelp } from './init.js';
import { recordResponse } from './hookRecord.js';
import { recordSpoolCommand } from './recordSpool.js';
import { stats } from './stats.js';
import { publish } from './team.js';
import { processIo, type CliIo } from './io.js';
import { ENV } from '../core/processEnv.js';
import { findStorage } from '../core/reach/locate.js';
import { exitOnOldNode } from '../core/nodeVersion.js';
import { restartWithSmallYoungGeneration } from '../core/smallYoungGeneration.js';

const STORE_COMMANDS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  capture,
  // Routed commands and shims of every version call it `keep`: the name stays, the module says what it does.
  keep: recordSpoolCommand,
  read,
  search,
  import: importFile,
  list,
  verify,
  stats,
  publish,
};

/** `self` is how this program was started, for the hook's rewritten commands when no shim is set. */
export async function runCli(argv: readonly string[], io: CliIo, self: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    await io.out(`${HELP.main}\n`);
    return name === undefined ? 2 : 0;
  }
  if (name === 'hook') {
    if (wantsHelp(rest)) {
      await io.out(`${HELP.hook}\n`);
      return 0;
    }
    return hook(rest, io, self, recordResponse);
  }
  if (name === 'mcp') {
    // The storage the hooks of this folder use (src/core/reach/locate.ts): a portable project file names none.
    const storage = findStorage(io.env, io.cwd)?.dir;
    const args =
      !rest.includes('--storage') && !rest.includes('--help') && storage ? ['--storage', storage, ...rest] : rest;
    // Loaded here only: every hook and read would otherwise pay the MCP SDK's start-up.
    return (await import('../mcp/server.js')).main(args);
  }
  const agentCommand = name === 'init' ? init : name === 'doctor' ? doctor : undefined;
  const fn = agentCommand ?? STORE_COMMANDS[name];
  if (!fn) {
    io.err(`bounded-evidence: unknown command "${name.slice(0, 40)}" (try bounded-evidence --help)\n`);
    return 2;
  }
  if (wantsHelp(rest)) {
    await io.out(`${name === 'init' ? initHelp() : HELP[name]}\n`);
    return 0;
  }
  try {
    return await fn(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`bounded-evidence ${name}: ${e.message.replace(/\s+/g, ' ')}\n`);
      return 2;
    }
    io.err(`bounded-evidence ${name}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    return 1;
  }
}

/** So captured commands see the terminal's environment. */
function restoreShimEnvironment(env: NodeJS.ProcessEnv): void {
  const was = env[ENV.electronWas];
  if (was === undefined) return;
  delete env[ENV.electronWas];
  if (was === '') delete env.ELECTRON_RUN_AS_NODE;
  else env.ELECTRON_RUN_AS_NODE = was;
}

if (require.main === module) {
  exitOnOldNode();
  if (process.argv[2] === 'mcp') restartWithSmallYoungGeneration();
  restoreShimEnvironment(process.env);
  const self = [process.execPath, process.argv[1] ?? ''];
  void runCli(process.argv.slice(2), processIo(), self).then(
    (code) => {
      process.exitCode = code;
      // A stuck child pipe must not keep a finished command line alive.
      if (process.argv[2] !== 'mcp') setTimeout(() => process.exit(code), 2_000).unref();
    },
    (e: unknown) => {
      process.stderr.write(`bounded-evidence: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
export { recordResponse } from './hookRecord.js';
// esbuild.js writes the npm package's `bounded-evidence` with it.
export { packageShimScript } from '../core/reach/shim.js';
