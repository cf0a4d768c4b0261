import * as assert from 'node:assert/strict';
import { readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunCaptureResult } from '../../src/extension/commands/runCommandAndCapture.js';
import { buildLogCommand, evidenceApi, reference, repoRoot, workspaceDir } from './helpers.js';

interface S3rverInstance {
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;

/** Every file under a folder, relative, with `/` separators. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

async function setStorage(values: Record<string, unknown>): Promise<void> {
  const c = vscode.workspace.getConfiguration('boundedEvidence');
  for (const [k, v] of Object.entries(values)) await c.update(k, v, vscode.ConfigurationTarget.Global);
}

describe('S3-compatible storage, configured from settings and SecretStorage', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'be-s3rver-'));
  let server: S3rverInstance | undefined;
  after(async () => {
    await setStorage({
      'storage.backend': undefined,
      'storage.s3.endpoint': undefined,
      'storage.s3.bucket': undefined,
      'storage.s3.prefix': undefined,
    });
    await vscode.commands.executeCommand('boundedEvidence.setS3Credentials', { accessKeyId: '' });
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps a captured command's output in the bucket under the tenant and reads it back with ranged gets", async function () {
    this.timeout(60_000);
    await evidenceApi();
    // A real local S3-compatible server (the repository's dev dependency), in this process.
    const S3rver = createRequire(path.join(repoRoot(), 'package.json'))('s3rver') as S3rverClass;
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      directory: dir,
      silent: true,
      configureBuckets: [{ name: 'evidence' }],
    });
    const { port } = await server.run();
    await setStorage({
      'storage.backend': 's3',
      'storage.s3.endpoint': `http://127.0.0.1:${port}`,
      'storage.s3.bucket': 'evidence',
      'storage.s3.prefix': 'it/',
    });
    // Storing the credentials reopens the stores with the settings in force now.
    assert.equal(
      await vscode.commands.executeCommand('boundedEvidence.setS3Credentials', {
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      }),
      true,
    );
    const command = buildLogCommand(4000);
    const ref = reference(command, workspaceDir());
    const r = await vscode.commands.executeCommand<RunCaptureResult>('boundedEvidence.runCommandAndCapture', {
      command,
      openInspector: false,
    });
    const stdout = r.attachments.find((a) => a.name === 'stdout')!;
    assert.equal(stdout.stored, 'blob');
    assert.equal(stdout.sha256, ref.sha256);
    const objects = filesUnder(path.join(dir, 'evidence')).filter((f) => f.includes(r.runId));
    assert.ok(
      objects.some((f) => /^it\/w[0-9a-f]{32}\//.test(f) && f.includes(`${r.callId}.stdout`)),
      `objects: ${objects.join(', ')}`,
    );
    const found = await (await evidenceApi()).read({ handle: stdout.handle, pattern: 'error TS2345' });
    assert.equal(found.total_matches, 1);
    assert.equal(found.matches?.[0]?.line_number, 2001);
  });
});
