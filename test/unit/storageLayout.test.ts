import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { isSafeSegment } from '../../../src/core/index.js';
import { layoutAt, tenantFor } from '../../../src/extension/storage.js';

describe('extension storage layout and tenant', () => {
  it('derives one safe, stable tenant per storage location, revealing no path', () => {
    const a = tenantFor('file:///home/u/.vscode/workspaceStorage/abc/bounded-evidence.bounded-evidence', false);
    assert.equal(a, tenantFor('file:///home/u/.vscode/workspaceStorage/abc/bounded-evidence.bounded-evidence', false));
    assert.match(a, /^w[0-9a-f]{32}$/);
    assert.ok(isSafeSegment(a));
    assert.notEqual(a, tenantFor('file:///home/u/.vscode/workspaceStorage/abd/bounded-evidence.bounded-evidence', false));
    assert.match(tenantFor('file:///g', true), /^g[0-9a-f]{32}$/);
  });

  it('puts logs, blobs and artifacts under <storage>/evidence', () => {
    const l = layoutAt('/s', 'file:///s', false);
    assert.deepEqual([l.root, l.logsDir, l.blobsDir, l.artifactsDir], ['/s/evidence', '/s/evidence/logs', '/s/evidence/blobs', '/s/evidence/artifacts'].map((p) => path.normalize(p)));
  });
});
