/**
 * Runs the one adapter contract suite against all three adapters: filesystem, memory and
 * S3 (a real s3rver on 127.0.0.1, started here, never skipped), plus adapter-specific
 * cases: the filesystem root, S3 faults (server down, HTTP 500 mid-read) and ranged
 * transfers.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readRange } from '../../../../src/core/blobs/blobStore.js';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';
import { MemoryBlobStore } from '../../../../src/core/blobs/memoryBlobStore.js';
import { S3BlobStore } from '../../../../src/core/blobs/s3BlobStore.js';
import { openVerified, putVerified } from '../../../../src/core/blobs/verifiedBlobs.js';
import { readVerified } from '../../../../src/core/integrity/integrity.js';
import { ARTIFACT_KEY, blobStoreContract, patterned, sameBytes } from './blobStoreContract.js';
import { closedEndpoint, startFaultProxy, startS3Server, type S3Server } from './s3Fixture.js';

const key = { tenant: 'tenant-a', runId: 'run-1', callId: 'c1' };

// Each adapter runs the suite twice: over a run's output keys and over artifact keys
// (`<tenant>/artifacts/<sha256>`, docs/contracts.md §1.1), the one store for bytes.
for (const k of [undefined, ARTIFACT_KEY]) {
  blobStoreContract('memory', async () => ({ store: new MemoryBlobStore(), cleanup: async () => {} }), k);

  blobStoreContract(
    'filesystem',
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'fsblobs-'));
      const store = await FsBlobStore.open(path.join(dir, 'nested', 'root'));
      return { store, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
    k,
  );
}

describe('S3 adapter against a real local s3rver', function () {
  let server: S3Server;
  before(async () => {
    server = await startS3Server();
  });
  after(async () => {
    await server.close();
  });

  let n = 0;
  for (const k of [undefined, ARTIFACT_KEY]) {
    blobStoreContract(
      's3',
      async () => {
        const store = new S3BlobStore({
          endpoint: server.endpoint,
          bucket: server.bucket,
          prefix: `suite-${++n}`,
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          partSizeBytes: 5 * 1024 * 1024,
        });
        return { store, cleanup: async () => store.dispose() };
      },
      k,
    );
  }

  it('answers a server that is down with a clear backend error', async () => {
    const store = new S3BlobStore({
      endpoint: await closedEndpoint(),
      bucket: server.bucket,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'secret-never-shown' },
      maxAttempts: 1,
    });
    try {
      await assert.rejects(
        store.size(key),
        (e: Error & { code?: string }) => e.code === 'backend' && e.message === 'blob store is unreachable',
      );
      await assert.rejects(store.put(key, patterned(10)), /blob store is unreachable/);
    } finally {
      store.dispose();
    }
  });

  it('answers HTTP 500 mid-read with a clear error, never partial data', async () => {
    const proxy = await startFaultProxy(server.endpoint);
    const store = new S3BlobStore({
      endpoint: proxy.endpoint,
      bucket: server.bucket,
      prefix: 'faults',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'secret-never-shown' },
      maxAttempts: 1,
    });
    try {
      const data = patterned(3 * 65_536 * 16 + 5);
      const put = await putVerified(store, key, data);
      const { manifest, source } = await openVerified(store, key, {
        sha256: put.manifest.sha256,
        byteCount: data.length,
        manifestDigest: put.manifestDigest,
      });
      sameBytes(await readVerified(source, manifest, 0, 10), data.subarray(0, 10));
      proxy.failWith500('GET');
      await assert.rejects(
        readVerified(source, manifest, 100, 110),
        (e: Error & { code?: string }) =>
          e.code === 'backend' && e.message === 'blob store request failed (HTTP 500)' && !e.message.includes('secret'),
      );
      proxy.heal();
      sameBytes(await readVerified(source, manifest, 100, 110), data.subarray(100, 110));
    } finally {
      store.dispose();
      await proxy.close();
    }
  });

  it('a ranged read sends a Range header: 4 KiB read, 4 KiB of body transferred', async () => {
    const proxy = await startFaultProxy(server.endpoint);
    const store = new S3BlobStore({
      endpoint: proxy.endpoint,
      bucket: server.bucket,
      prefix: 'ranges',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      await store.put(key, patterned(1024 * 1024));
      const before = proxy.bodyBytes;
      const got = await readRange(store, key, 500_000, 504_096);
      assert.equal(got.length, 4096);
      assert.equal(proxy.bodyBytes - before, 4096);
    } finally {
      store.dispose();
      await proxy.close();
    }
  });
});

describe('FsBlobStore specifics', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'fsblobs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates its root and lays files out as <root>/<tenant>/<runId>/<callId>, no temp files left', async () => {
    const root = path.join(dir, 'a', 'b');
    const store = await FsBlobStore.open(root);
    assert.equal(store.root, root);
    await store.put(key, patterned(5));
    assert.ok(existsSync(path.join(root, 'tenant-a', 'run-1', 'c1')));
    assert.deepEqual(readdirSync(path.join(root, 'tenant-a', 'run-1')), ['c1']);
  });

  it('refuses a root that is a file', async () => {
    writeFileSync(path.join(dir, 'f'), 'x');
    await assert.rejects(FsBlobStore.open(path.join(dir, 'f')), /blob store root is not a directory|EEXIST|ENOTDIR/);
  });

  it('a key with .. never writes outside the root', async () => {
    const store = await FsBlobStore.open(path.join(dir, 'root'));
    await assert.rejects(
      store.put({ tenant: '..', runId: '..', callId: 'escape' }, patterned(1)),
      /not a safe path segment/,
    );
    assert.equal(existsSync(path.join(dir, 'escape')), false);
  });
});
