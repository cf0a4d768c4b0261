import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  isSafeSegment,
  layoutAt,
  layoutOfFolder,
  sharedWorkspaceStorage,
  tenantFor,
  vscodeFileUri,
} from '../../../src/core/index.js';

describe('storage layout and tenant (editor and MCP server)', () => {
  it('derives one safe, stable tenant per storage location, revealing no path', () => {
    const a = tenantFor('file:///home/u/.vscode/workspaceStorage/abc/bounded-evidence.bounded-evidence', false);
    assert.equal(a, tenantFor('file:///home/u/.vscode/workspaceStorage/abc/bounded-evidence.bounded-evidence', false));
    assert.match(a, /^w[0-9a-f]{32}$/);
    assert.ok(isSafeSegment(a));
    assert.notEqual(
      a,
      tenantFor('file:///home/u/.vscode/workspaceStorage/abd/bounded-evidence.bounded-evidence', false),
    );
    assert.match(tenantFor('file:///g', true), /^g[0-9a-f]{32}$/);
  });

  it('puts logs, blobs and artifacts under <storage>/evidence', () => {
    const l = layoutAt('/s', 'file:///s', false);
    assert.deepEqual(
      [l.root, l.logsDir, l.blobsDir, l.artifactsDir],
      ['/s/evidence', '/s/evidence/logs', '/s/evidence/blobs', '/s/evidence/artifacts'].map((p) => path.normalize(p)),
    );
  });

  it("derives from a folder path as the editor derives from VS Code's URI of it (percent-encoding ! ' ( ) * and spaces)", () => {
    assert.equal(vscodeFileUri("/a b/c!(x)*'é"), 'file:///a%20b/c%21%28x%29%2A%27%C3%A9');
    const l = layoutOfFolder('/s/ws 1', true);
    assert.equal(l.tenant, tenantFor('file:///s/ws%201', true));
    assert.equal(l.logsDir, path.normalize('/s/ws 1/evidence/logs'));
    assert.equal(l.global, true);
  });

  it("a window VS Code gave a locked workspace's `-<n>` folder shares the base folder's storage, only when that folder exists", () => {
    const ws = path.normalize('/u/User/workspaceStorage');
    const ext = 'bounded-evidence.bounded-evidence';
    const asked: string[] = [];
    const exists = (dir: string): boolean => {
      asked.push(dir);
      return dir === path.join(ws, '-556123e7') || dir === path.join(ws, 'abc');
    };
    assert.equal(sharedWorkspaceStorage(path.join(ws, '-556123e7-1', ext), exists), path.join(ws, '-556123e7', ext));
    assert.equal(sharedWorkspaceStorage(path.join(ws, 'abc-9', ext), exists), path.join(ws, 'abc', ext));
    assert.deepEqual(asked, [path.join(ws, '-556123e7'), path.join(ws, 'abc')]);
    // The base itself, a suffix VS Code never gives (0, 10), a missing base, a name that is only a suffix: unchanged.
    for (const dir of ['abc', 'abc-0', 'abc-10', 'zzz-1', '-1'])
      assert.equal(sharedWorkspaceStorage(path.join(ws, dir, ext), exists), path.join(ws, dir, ext), dir);
  });
});
