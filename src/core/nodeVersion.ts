/**
 * The Node the product's own processes need (package.json `engines.node`): 22.14 or
 * newer, where `node:sqlite` works unflagged (the run catalog, docs/architecture.md §6).
 * The command line and the MCP server check it first, so an older Node on PATH gives
 * one clear line instead of a stack trace from deep inside the first store it opens.
 */

/** The oldest Node the product runs on. */
const MIN_NODE = { major: 22, minor: 14 } as const;

/** The one-line complaint about `version` (`process.versions.node`), or undefined when it is new enough. */
export function nodeVersionProblem(version: string): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  if (major === undefined || minor === undefined || !Number.isFinite(major) || !Number.isFinite(minor))
    return undefined;
  if (major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)) return undefined;
  return `bounded-evidence needs Node ${MIN_NODE.major}.${MIN_NODE.minor} or newer (this is v${version})`;
}

/** Exits with that line on stderr when this process's Node is too old. */
export function exitOnOldNode(): void {
  const problem = nodeVersionProblem(process.versions.node);
  if (problem === undefined) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
