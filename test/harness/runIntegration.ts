/**
 * Runs the integration suite inside a real VS Code extension host: the server build
 * in smoke-test mode honours `extensionTestsPath` from the URL payload, runs the
 * suite's `run()` and reports the exit code through `codeAutomationExit`. The suite
 * itself is the same one `@vscode/test-electron` would run on a desktop.
 */
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { Workbench } from './workbench.js';
import { repoRoot } from './tools.js';

const TIMEOUT_MS = Number(process.env.BE_INTEGRATION_TIMEOUT_MS ?? 15 * 60_000);

/**
 * The workbench's own chatter on a closed network (gallery look-ups, chat and auth
 * probes), and the bundled Copilot Chat's once a test enables it without sign-in (its
 * Copilot CLI sessions provider and GitHub token look-ups fail with long stacks).
 */
function isWorkbenchNoise(text: string): boolean {
  return /open-vsx\.org|\/static\/out\/vs\/|^\[(AgentHost|ChatModelSelection|ChatSessionsService|RemoteAgentHostProtocol)\]|ENOTFOUND|^GitHubLoginFailed|^No utility model is configured|^Directory import .*@github\/copilot\/sdk/.test(
    text,
  );
}

/** Test fixture extensions (test/integration/fixtures/<name>/package.json), installed beside the one under test. */
function fixtureExtensions(): string[] {
  const dir = path.join(repoRoot, 'test', 'integration', 'fixtures');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((d) => path.join(dir, d))
    .filter((d) => existsSync(path.join(d, 'package.json')));
}

async function main(): Promise<number> {
  const testsIndex = path.join(repoRoot, 'out', 'test', 'integration', 'index.js');
  if (!existsSync(testsIndex))
    throw new Error('out/test/integration/index.js is missing: run `node esbuild.js --tests` first');
  let resolveExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((r) => {
    resolveExit = r;
  });
  let wb: Workbench | undefined;
  const timer = setTimeout(() => resolveExit(124), TIMEOUT_MS);
  try {
    wb = await Workbench.open({
      label: 'integration',
      workspaceTemplate: path.join(repoRoot, 'test', 'integration', 'workspace'),
      payload: (remote) => [['extensionTestsPath', remote(testsIndex)]],
      extraExtensions: fixtureExtensions(),
      onLog: (_type, text) => {
        if (!isWorkbenchNoise(text)) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      },
      onExit: (code) => resolveExit(code),
    });
    const code = await exited;
    if (code === 124) console.error(`integration: timed out after ${TIMEOUT_MS} ms`);
    return code;
  } finally {
    clearTimeout(timer);
    await wb?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
