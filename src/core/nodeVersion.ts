/**
 * 22.14 is where `node:sqlite` works unflagged (the run catalog). Checked first, so an older Node gives one clear
 * line instead of a stack trace.
 */

const MIN_NODE = { major: 22, minor: 14 } as const;

export function nodeVersionProblem(version: string): string | undefined {
  const [major, minor] = version.split('.').map(Number);
  if (major === undefined || minor === undefined || !Number.isFinite(major) || !Number.isFinite(minor))
    return undefined;
  if (major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)) return undefined;
  return `bounded-evidence needs Node ${MIN_NODE.major}.${MIN_NODE.minor} or newer (this is v${version})`;
}

export function exitOnOldNode(): void {
  const problem = nodeVersionProblem(process.versions.node);
  if (problem === undefined) return;
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
