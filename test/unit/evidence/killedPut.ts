/**
 * Child process of the "killed during put" test: starts a 16 MiB putStream into the
 * store at argv[2], says `writing` once at least 2 MiB are on disk, then waits for
 * more input forever, so the parent's SIGKILL always lands mid-write.
 */
import { ArtifactStore } from '../../../src/core/artifacts.js';

async function* slowStream(): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < 16; i++) {
    // Asked for piece 3: pieces 0 and 1 have been written (1 MiB writes, in order).
    if (i === 3) {
      process.stdout.write('writing\n');
      await new Promise(() => undefined);
    }
    yield new Uint8Array(1024 * 1024).fill(i + 1);
  }
}

void (async () => {
  const store = await ArtifactStore.open(process.argv[2]!);
  await store.putStream(slowStream());
  process.stdout.write('finished\n');
})();
