/**
 * Child process of the "killed during put" test: starts a 16 MiB putStream into an artifact
 * store over the filesystem blob store at argv[2] (tenant `t`), says `writing` once at least
 * 2 MiB are on disk, then waits for more input forever, so the parent's SIGKILL always lands
 * mid-write.
 */
import { ArtifactStore } from '../../../../src/core/artifacts/artifacts.js';
import { FsBlobStore } from '../../../../src/core/blobs/fsBlobStore.js';

async function* slowStream(): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < 16; i++) {
    // Asked for piece 3: pieces 0 and 1 have been written (each written before the next is asked for).
    if (i === 3) {
      process.stdout.write('writing\n');
      await new Promise(() => undefined);
    }
    yield new Uint8Array(1024 * 1024).fill(i + 1);
  }
}

void (async () => {
  const store = new ArtifactStore({ blobs: await FsBlobStore.open(process.argv[2]!, { sweep: false }), tenant: 't' });
  await store.putStream(slowStream());
  process.stdout.write('finished\n');
})();
