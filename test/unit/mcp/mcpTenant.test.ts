/**
 * The tenant of a storage folder is the same whatever path reaches it
 * and however many processes start at once (docs/contracts.md §2.6). Two MCP servers
 * started together on a new folder, one through a symlink, chose two tenants in about 1
 * of 5 tries (each derived it from its own spelling unless the other's tenant folder
 * already existed), and each then refused the other's handles for ever.
 */
import * as assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { layoutAt, RunStore, TENANT_FILE, tenantFor, vscodeFileUri } from '../../../src/core/index.js';
import { openStorage } from '../../../src/node/openStorage.js';

describe('the tenant of a storage folder', () => {
  let tmp: string;
  let real: string;
  let viaLink: string;
  beforeEach(() => {
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'be-tenant-')));
    mkdirSync(path.join(tmp, 'real'));
    symlinkSync(path.join(tmp, 'real'), path.join(tmp, 'link'));
    real = path.join(tmp, 'real', 'storage');
    viaLink = path.join(tmp, 'link', 'storage');
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** What a server does at start: choose the tenant, then open its stores (which make the tenant's folder). */
  async function start(storageDir: string): Promise<string> {
    const storage = await openStorage(storageDir);
    await RunStore.open({ logsDir: storage.logsDir, tenant: storage.tenant, maintenance: false });
    return storage.tenant;
  }

  it("20 starts racing on a new folder through two spellings (one a symlink) all choose one tenant, the editor's", async function () {
    this.timeout(60_000);
    // The editor's own derivation for this folder, from its storage URI (src/core/storageLayout.ts).
    const editor = layoutAt(real, vscodeFileUri(real), false).tenant;
    const chosen: string[][] = [];
    for (let round = 0; round < 5; round++) {
      rmSync(real, { recursive: true, force: true });
      const tenants = await Promise.all(Array.from({ length: 20 }, (_, i) => start(i % 2 === 0 ? real : viaLink)));
      chosen.push([...new Set(tenants)]);
      chosen.push(readdirSync(path.join(real, 'evidence', 'logs')));
    }
    assert.deepEqual(
      chosen,
      Array.from({ length: 10 }, () => [editor]),
      'per round: the tenants chosen, then the tenant folders made',
    );
    assert.equal(readFileSync(path.join(real, 'evidence', TENANT_FILE), 'utf8'), `${editor}\n`);
    // Nothing but the tenant file is left of the claims (their temporary files are gone).
    assert.deepEqual(readdirSync(path.join(real, 'evidence')).sort(), [TENANT_FILE, 'blobs', 'logs']);
  });

  it('a recorded tenant is kept by every later start, whichever spelling; one of another shape is refused, not overwritten', async () => {
    mkdirSync(path.join(real, 'evidence'), { recursive: true });
    const other = `w${'3'.repeat(32)}`;
    writeFileSync(path.join(real, 'evidence', TENANT_FILE), `${other}\n`);
    assert.deepEqual(
      [(await openStorage(viaLink)).tenant, (await openStorage(real)).tenantSource],
      [other, 'recorded'],
    );
    // A global-kind choice is not bound by a workspace tenant recorded (and does not rewrite it).
    assert.equal((await openStorage(real, { global: true })).tenant, tenantFor(vscodeFileUri(real), true));
    assert.equal(readFileSync(path.join(real, 'evidence', TENANT_FILE), 'utf8'), `${other}\n`);
    writeFileSync(path.join(real, 'evidence', TENANT_FILE), 'not a tenant\n');
    await assert.rejects(
      openStorage(viaLink),
      new RegExp(
        `^Error: ${path.join(real, 'evidence', TENANT_FILE).replace(/[.]/g, '\\.')} does not hold a tenant; remove it, or pass --tenant to choose one$`,
      ),
    );
  });
});
