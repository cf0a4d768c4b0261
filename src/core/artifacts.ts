/**
 * The artifact store (docs/contracts.md §1.1); the identity it keeps by is artifactRef.ts.
 *
 * Layout: with no tenant, an artifact lives at `<root>/<artifactId>`; with a tenant, at
 * `<root>/<tenant>/<artifactId>`. Beside the artifacts, in the same directory, the store
 * keeps only dot-named things: `.manifests/<artifactId>.manifest` (the integrity
 * manifest: per-chunk digests, line index) and `.tmp-*` files being written. The
 * `.manifest` suffix keeps a tenant named `.manifests` from colliding with the
 * untenanted store's metadata.
 *
 * Trust: the store serves only artifacts it knows (put here, or `register`ed from run
 * records). For each it keeps the identity and the sha256 of its serialised manifest, so
 * a manifest rewritten behind our back is a digest mismatch, never a new truth. Every
 * range read checks the stored size and the digests of the chunks it returns
 * (`readVerified`), so a read costs O(range), not O(artifact).
 *
 * Files are opened with O_NOFOLLOW (and O_NONBLOCK, so a FIFO planted under an
 * artifact's name cannot hang a read): an artifact replaced by a symlink is a digest
 * mismatch, never followed.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsc, promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { EvidenceError } from './errors.js';
import {
  DEFAULT_CHUNK_SIZE, decodeManifest, encodeManifest, ManifestBuilder, manifestOf, readVerified, verifyAll,
  type Manifest, type OpenedFile, type RangeSource,
} from './integrity.js';
import { fileIdentity, openedRegular, readFullAt } from './localFile.js';
import { ManifestCache } from './manifestCache.js';
import { sha256Hex } from './sha256.js';
import { artifactRangePath, isArtifactId, isRange, makeArtifactRef, SHA256_HEX, type ArtifactRef } from './artifactRef.js';
import { encodeUtf8 } from './utf8.js';
import { rememberWritten } from './verifiedChunks.js';
import { VERIFIED_MARKS_FILE, VerifiedMarks } from './verifiedMarks.js';

/** Options of `ArtifactStore.open`. */
export interface ArtifactStoreOptions {
  /** One safe path segment; the store keeps this tenant's artifacts in `<root>/<tenant>`. */
  readonly tenant?: string;
  /** Chunk size of new manifests (tests use small ones); default 64 KiB. */
  readonly chunkSize?: number;
  /**
   * fdatasync each new artifact before renaming it into place (default true), so that
   * not even a power loss leaves a short file under an artifact's name. A process crash
   * is covered by the rename alone.
   */
  readonly durable?: boolean;
  /** False for a short-lived process: stale temporary files are not looked for at open (`RunStoreOptions.maintenance`). */
  readonly maintenance?: boolean;
}

/**
 * A known artifact opened for verified reading by another layer (lines, patterns,
 * byte windows): pass `source` and `manifest` to `readVerified`/`streamVerified`/
 * `locateLine`. `source` is physical and unverified on its own. Close it when done.
 */
export interface ArtifactReader {
  /** The artifact's identity. */
  readonly ref: ArtifactRef;
  /** The trusted manifest (its digest matched the one recorded). */
  readonly manifest: Manifest;
  /** Physical access to the artifact file; never follows a symlink. */
  readonly source: RangeSource;
  /** Releases the file handle. */
  close(): Promise<void>;
}

/** What the store knows about one artifact. */
interface Entry {
  readonly ref: ArtifactRef;
  /** sha256 of the serialised manifest; undefined until a full verification trusts one. */
  manifestDigest: string | undefined;
}

const SAFE_SEGMENT = /^[A-Za-z0-9._-]{1,128}$/;
const MANIFESTS = '.manifests';
const TEMP_PREFIX = '.tmp-';
/** Leftover temp files (from a crashed writer) older than this are removed on open. */
const STALE_TEMP_MS = 60 * 60 * 1000;
/** Decoded manifests kept in memory (bytes of digests and line counts). */
const MANIFEST_CACHE_BYTES = 32 * 1024 * 1024;
/** Small stream pieces are gathered into writes of this size. */
const WRITE_BUFFER = 1024 * 1024;

/** Exact bytes of tool results, under one root (and tenant), each verified on read. */
export class ArtifactStore {
  private readonly known = new Map<string, Entry>();
  /** Trusted manifests by their digest (the one manifest cache). */
  private readonly manifests = new ManifestCache(MANIFEST_CACHE_BYTES);
  /** Manifest loads in flight (a first load may be a full O(size) verification). */
  private readonly loading = new Map<string, Promise<Manifest>>();
  /** In-memory puts in flight, by id: many promises putting the same bytes write once. */
  private readonly putting = new Map<string, Promise<ArtifactRef>>();
  /** Marks of whole verified artifact files, `<dir>/.verified-v1` (docs/contracts.md §1.1). */
  private readonly marks: VerifiedMarks;

  private constructor(
    /** The store's root, resolved to an absolute path (the tenant folder is below it). */
    readonly root: string,
    /** The tenant, when the store was opened with one. */
    readonly tenant: string | undefined,
    private readonly dir: string,
    private readonly chunkSize: number,
    private readonly durable: boolean,
  ) {
    this.marks = new VerifiedMarks(path.join(dir, VERIFIED_MARKS_FILE));
  }

  /**
   * Opens a store over an existing root directory. The root must not itself be a
   * symlink (its parents may be): a swapped root link would silently redirect every
   * artifact. The tenant folder is created when missing.
   */
  static async open(root: string, options: ArtifactStoreOptions = {}): Promise<ArtifactStore> {
    if (typeof root !== 'string' || root.length === 0) throw new EvidenceError('invalidArgument', 'artifact store root must be a path');
    const resolved = path.resolve(root);
    await requireDirectory(resolved, 'artifact store root');
    const { tenant } = options;
    if (tenant !== undefined && (typeof tenant !== 'string' || !SAFE_SEGMENT.test(tenant) || tenant === '.' || tenant === '..')) {
      throw new EvidenceError('invalidArgument', 'artifact store tenant must be one safe path segment');
    }
    const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
    if (!Number.isSafeInteger(chunkSize) || chunkSize <= 0) throw new EvidenceError('invalidArgument', 'artifact chunk size must be a positive integer');
    const dir = tenant === undefined ? resolved : path.join(resolved, tenant);
    if (tenant !== undefined) {
      await mkdirOnce(dir);
      await requireDirectory(dir, 'artifact store tenant folder');
    }
    await mkdirOnce(path.join(dir, MANIFESTS));
    await requireDirectory(path.join(dir, MANIFESTS), 'artifact store metadata folder');
    if (options.maintenance ?? true) {
      await removeStaleTemps(dir);
      await removeStaleTemps(path.join(dir, MANIFESTS));
    }
    return new ArtifactStore(resolved, tenant, dir, chunkSize, options.durable ?? true);
  }

  /** Stores the exact UTF-8 bytes of a text result (TextEncoder's), or raw bytes. */
  async put(result: string | Uint8Array): Promise<ArtifactRef> {
    if (typeof result !== 'string' && !(result instanceof Uint8Array)) throw new TypeError('put takes a string or a Uint8Array');
    const bytes = typeof result === 'string' ? encodeUtf8(result) : result;
    const manifest = manifestOf(bytes, this.chunkSize);
    const id = `artifact-${manifest.sha256}`;
    const inflight = this.putting.get(id);
    if (inflight) return inflight;
    const p = this.putKnownBytes(bytes, manifest).finally(() => this.putting.delete(id));
    this.putting.set(id, p);
    return p;
  }

  /**
   * Stores a stream of bytes of unknown size in constant memory: each piece is written
   * to a temporary file while it is hashed (the write runs in the thread pool while
   * the hash runs here), then renamed under its id.
   */
  async putStream(chunks: AsyncIterable<Uint8Array>): Promise<ArtifactRef> {
    const temp = this.tempPath(this.dir);
    const fh = await fsp.open(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
    const builder = new ManifestBuilder(this.chunkSize);
    const staging = new Uint8Array(WRITE_BUFFER);
    let staged = 0;
    try {
      for await (const piece of chunks) {
        if (!(piece instanceof Uint8Array)) throw new TypeError('putStream takes pieces of Uint8Array');
        if (staged + piece.length <= WRITE_BUFFER) {
          // Producers may reuse their buffer after we ask for the next piece: copy small ones.
          staging.set(piece, staged);
          staged += piece.length;
          builder.update(piece);
          if (staged === WRITE_BUFFER) { await writeAll(fh, staging); staged = 0; }
          continue;
        }
        if (staged > 0) { await writeAll(fh, staging.subarray(0, staged)); staged = 0; }
        const writing = writeAll(fh, piece);
        builder.update(piece);
        await writing;
      }
      if (staged > 0) await writeAll(fh, staging.subarray(0, staged));
      if (this.durable) await fh.datasync();
    } catch (e) {
      await fh.close().catch(() => undefined);
      await fsp.rm(temp, { force: true });
      throw e;
    }
    await fh.close();
    return this.commitTemp(temp, builder.finish());
  }

  /**
   * Raw bytes `[start, end)`, every one verified. Fails, in the contract's order, with
   * `artifactIdInvalid`, `rangeOrder`, `notAvailable`, `digestMismatch`, `exceedsStored`
   * (`EvidenceError`, message without the `error: ` prefix).
   */
  async readRange(artifactId: string, start: number, end: number): Promise<Uint8Array> {
    if (!isArtifactId(artifactId)) throw new EvidenceError('artifactIdInvalid');
    if (!isRange(start, end)) throw new EvidenceError('rangeOrder');
    const reader = await this.openReader(artifactId);
    try {
      // Copy out of the chunk-aligned read buffer so a 4 KiB result does not pin 128 KiB.
      return Uint8Array.from(await readVerified(reader.source, reader.manifest, start, end));
    } finally {
      await reader.close();
    }
  }

  /** The virtual path of a range of an artifact, as the evidence workspace advertises it. */
  rangePath(artifactId: string, start: number, end: number): string {
    return artifactRangePath(artifactId, start, end);
  }

  /**
   * Opens a known artifact for verified reading. Throws `artifactIdInvalid`,
   * `notAvailable`, or `digestMismatch` when its manifest cannot be trusted.
   */
  async openReader(artifactId: string): Promise<ArtifactReader> {
    if (!isArtifactId(artifactId)) throw new EvidenceError('artifactIdInvalid');
    const entry = this.known.get(artifactId);
    if (!entry) throw new EvidenceError('notAvailable');
    const manifest = await this.trustedManifest(entry);
    const source = new FileSource(this.artifactPath(artifactId));
    return { ref: entry.ref, manifest, source, close: () => source.close() };
  }

  /**
   * The artifact a run record names, opened for verified reading: learned from the record
   * (identity and manifest digest) when this store did not know it and its file is here,
   * else `notAvailable`; a known artifact with another identity is a digest mismatch. The
   * file is opened per read and closed again (no handle is held between reads).
   */
  async openRecorded(ref: { artifactId: string; byteCount: number; sha256: string }, manifestDigest: string): Promise<{ manifest: Manifest; source: RangeSource }> {
    const checked = makeArtifactRef(ref.artifactId, ref.byteCount, ref.sha256);
    if (!this.known.has(checked.artifactId)) {
      if (!(await this.hasFile(checked.artifactId))) throw new EvidenceError('notAvailable');
      this.register(checked, manifestDigest);
    }
    const entry = this.known.get(checked.artifactId)!;
    if (entry.ref.byteCount !== checked.byteCount) throw new EvidenceError('digestMismatch');
    const manifest = await this.trustedManifest(entry);
    const file = this.artifactPath(checked.artifactId);
    const once = async <T>(use: (s: FileSource) => Promise<T>): Promise<T> => {
      const s = new FileSource(file);
      try { return await use(s); } finally { await s.close(); }
    };
    // A local file: a pattern search reads it by descriptor and skips chunks verified under
    // its identity, here or (marked on disk) by another process (docs/contracts.md §1.1, §2.10).
    return {
      manifest,
      source: {
        size: () => once((s) => s.size()),
        read: (start, end) => once((s) => s.read(start, end)),
        openFile: () => openSearchable(file),
        verifiedMarks: this.marks,
      },
    };
  }

  /** A known artifact's trusted manifest and its digest (what a run record keeps to name it). */
  async manifestFor(artifactId: string): Promise<{ manifest: Manifest; manifestDigest: string }> {
    const entry = this.known.get(artifactId);
    if (!entry) throw new EvidenceError('notAvailable');
    const manifest = await this.trustedManifest(entry);
    // trustedManifest sets the digest when it had none.
    return { manifest, manifestDigest: entry.manifestDigest ?? sha256Hex(encodeManifest(manifest)) };
  }

  /**
   * Full verification (O(size)): every chunk digest and the whole sha256. False on any
   * change anywhere, a changed size, a missing file or an untrusted manifest.
   */
  async verify(artifactId: string): Promise<boolean> {
    let reader: ArtifactReader;
    try {
      reader = await this.openReader(artifactId);
    } catch (e) {
      if (e instanceof EvidenceError && e.code === 'digestMismatch') return false;
      throw e;
    }
    try {
      return await verifyWhole(reader.source, reader.manifest);
    } finally {
      await reader.close();
    }
  }

  /** True when this store knows the artifact (put here or registered). */
  has(artifactId: string): boolean {
    return this.known.has(artifactId);
  }

  /**
   * True when a file lies under the artifact's name in this store's folder, known or not:
   * what re-registration from run records checks, without callers rebuilding the layout.
   */
  async hasFile(artifactId: string): Promise<boolean> {
    if (!isArtifactId(artifactId)) return false;
    return await fsp.stat(this.artifactPath(artifactId)).then((s) => s.isFile(), () => false);
  }

  /** The identity of a known artifact. */
  ref(artifactId: string): ArtifactRef | undefined {
    return this.known.get(artifactId)?.ref;
  }

  /** sha256 of a known artifact's trusted manifest: run records keep it for `register`. */
  manifestDigestOf(artifactId: string): string | undefined {
    return this.known.get(artifactId)?.manifestDigest;
  }

  /** Every known artifact, sorted by id. */
  list(): ArtifactRef[] {
    return [...this.known.values()].map((e) => e.ref).sort((a, b) => (a.artifactId < b.artifactId ? -1 : a.artifactId > b.artifactId ? 1 : 0));
  }

  /**
   * Makes an artifact known again (from this tenant's run records, on start-up). With
   * `manifestDigest`, the manifest on disk must hash to it. Without, the first read
   * verifies the whole file against the identity before trusting (or rebuilding) its
   * manifest. Nothing is read here, so start-up stays O(records).
   */
  register(ref: ArtifactRef, manifestDigest?: string): void {
    const checked = makeArtifactRef(ref.artifactId, ref.byteCount, ref.sha256);
    if (manifestDigest !== undefined && !SHA256_HEX.test(manifestDigest)) {
      throw new EvidenceError('invalidArgument', 'manifest digest must be 64 lowercase hex digits');
    }
    const existing = this.known.get(checked.artifactId);
    if (existing) {
      if (existing.ref.byteCount !== checked.byteCount) throw new EvidenceError('invalidArgument', 'artifact byte count conflicts with the known identity');
      // A digest this store already trusts wins over one read from a record.
      existing.manifestDigest ??= manifestDigest;
      return;
    }
    this.known.set(checked.artifactId, { ref: checked, manifestDigest });
  }

  /** Forgets an artifact (its files stay): this store no longer serves it. */
  forget(artifactId: string): boolean {
    return this.known.delete(artifactId);
  }

  /** Forgets an artifact and removes its file and manifest. */
  async delete(artifactId: string): Promise<boolean> {
    if (!this.known.has(artifactId)) return false;
    this.forget(artifactId);
    await fsp.rm(this.artifactPath(artifactId), { force: true });
    await fsp.rm(this.manifestPath(artifactId), { force: true });
    return true;
  }

  private async putKnownBytes(bytes: Uint8Array, manifest: Manifest): Promise<ArtifactRef> {
    const id = `artifact-${manifest.sha256}`;
    // Same bytes already stored: verify and return without writing the artifact again.
    if (await exists(this.artifactPath(id))) return this.adoptExisting(id, manifest);
    const temp = this.tempPath(this.dir);
    const fh = await fsp.open(temp, fsc.O_WRONLY | fsc.O_CREAT | fsc.O_EXCL, 0o600);
    try {
      await writeAll(fh, bytes);
      if (this.durable) await fh.datasync();
      await fh.close();
    } catch (e) {
      await fh.close().catch(() => undefined);
      await fsp.rm(temp, { force: true });
      throw e;
    }
    return this.commitTemp(temp, manifest);
  }

  /**
   * Moves a complete temporary file under its id. The manifest goes first, so a file
   * under an artifact's name always has its manifest beside it.
   */
  private async commitTemp(temp: string, manifest: Manifest): Promise<ArtifactRef> {
    const id = `artifact-${manifest.sha256}`;
    const final = this.artifactPath(id);
    try {
      if (await exists(final)) return await this.adoptExisting(id, manifest);
      await this.writeManifest(id, manifest);
      // The manifest was hashed from the bytes written: the file is marked verified under
      // the identity of this very file once in place, taken from a descriptor opened before
      // the rename (so a file another writer renamed over `final` meanwhile is not the one
      // marked), as the blob store's "chunks verified at write time" (docs/contracts.md §1.1).
      const written = await fsp.open(temp, 'r').catch(() => undefined);
      try {
        await fsp.rename(temp, final);
        if (this.durable) await syncDirectory(this.dir);
        const st = await written?.stat({ bigint: true }).catch(() => undefined);
        if (st?.isFile()) await rememberWritten(fileIdentity(st), manifest, this.marks);
      } finally {
        await written?.close();
      }
    } finally {
      await fsp.rm(temp, { force: true });
    }
    return this.remember(manifest);
  }

  /** A file already under the id: equal bytes are adopted, other bytes are a conflict. */
  private async adoptExisting(id: string, manifest: Manifest): Promise<ArtifactRef> {
    const source = new FileSource(this.artifactPath(id));
    let same: boolean;
    try { same = await verifyWhole(source, manifest); } finally { await source.close(); }
    if (!same) throw new EvidenceError('contentsConflict');
    await this.writeManifest(id, manifest);
    return this.remember(manifest);
  }

  private remember(manifest: Manifest): ArtifactRef {
    const ref = makeArtifactRef(`artifact-${manifest.sha256}`, manifest.byteCount, manifest.sha256);
    const digest = sha256Hex(encodeManifest(manifest));
    const existing = this.known.get(ref.artifactId);
    if (existing) existing.manifestDigest = digest;
    else this.known.set(ref.artifactId, { ref, manifestDigest: digest });
    this.manifests.set(digest, manifest);
    return ref;
  }

  /** Writes the manifest atomically, unless an identical one is already there. */
  private async writeManifest(id: string, manifest: Manifest): Promise<void> {
    const encoded = encodeManifest(manifest);
    const target = this.manifestPath(id);
    const current = await readNoFollow(target);
    if (current && Buffer.from(current).equals(encoded)) return;
    const temp = this.tempPath(path.join(this.dir, MANIFESTS));
    try {
      await fsp.writeFile(temp, encoded, { flag: 'wx', mode: 0o600 });
      await fsp.rename(temp, target);
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }

  private async trustedManifest(entry: Entry): Promise<Manifest> {
    const id = entry.ref.artifactId;
    const cached = entry.manifestDigest !== undefined ? this.manifests.get(entry.manifestDigest) : undefined;
    if (cached && cached.sha256 === entry.ref.sha256 && cached.byteCount === entry.ref.byteCount) return cached;
    const pending = this.loading.get(id);
    if (pending) return pending;
    const p = this.loadManifest(entry).finally(() => this.loading.delete(id));
    this.loading.set(id, p);
    return p;
  }

  private async loadManifest(entry: Entry): Promise<Manifest> {
    const { ref } = entry;
    const stored = await readNoFollow(this.manifestPath(ref.artifactId));
    if (entry.manifestDigest !== undefined) {
      if (!stored || sha256Hex(stored) !== entry.manifestDigest) throw new EvidenceError('digestMismatch');
      const m = decodeManifest(stored);
      if (m.sha256 !== ref.sha256 || m.byteCount !== ref.byteCount) throw new EvidenceError('digestMismatch');
      this.manifests.set(entry.manifestDigest, m);
      return m;
    }
    // No recorded manifest digest: trust comes from the identity alone, so the whole
    // file is hashed once before its manifest is believed (or rebuilt from it).
    let m = stored ? decodeOrUndefined(stored) : undefined;
    if (m && (m.sha256 !== ref.sha256 || m.byteCount !== ref.byteCount)) m = undefined;
    if (m) {
      const source = new FileSource(this.artifactPath(ref.artifactId));
      try { if (!(await verifyWhole(source, m))) throw new EvidenceError('digestMismatch'); } finally { await source.close(); }
    } else {
      m = await this.rebuildManifest(ref);
      await this.writeManifest(ref.artifactId, m);
    }
    entry.manifestDigest = sha256Hex(encodeManifest(m));
    this.manifests.set(entry.manifestDigest, m);
    return m;
  }

  /** Hashes the artifact file into a fresh manifest; it must match the identity. */
  private async rebuildManifest(ref: ArtifactRef): Promise<Manifest> {
    const source = new FileSource(this.artifactPath(ref.artifactId));
    try {
      const size = await source.size();
      if (size !== ref.byteCount) throw new EvidenceError('digestMismatch');
      const builder = new ManifestBuilder(this.chunkSize);
      for (let pos = 0; pos < size; pos += WRITE_BUFFER) {
        const piece = await source.read(pos, Math.min(size, pos + WRITE_BUFFER));
        if (piece.length === 0) break;
        builder.update(piece);
      }
      const m = builder.finish();
      if (m.sha256 !== ref.sha256 || m.byteCount !== ref.byteCount) throw new EvidenceError('digestMismatch');
      return m;
    } finally {
      await source.close();
    }
  }


  private artifactPath(id: string): string { return path.join(this.dir, id); }
  private manifestPath(id: string): string { return path.join(this.dir, MANIFESTS, `${id}.manifest`); }
  private tempPath(dir: string): string { return path.join(dir, `${TEMP_PREFIX}${randomBytes(12).toString('hex')}`); }
}

/**
 * A stored file as a `RangeSource`. Opened lazily with O_NOFOLLOW | O_NONBLOCK; a
 * missing file, a symlink or anything but a regular file has no size (a digest
 * mismatch for the callers), never an exception carrying a host path.
 */
class FileSource implements RangeSource {
  private handle: FileHandle | undefined;
  private gone = false;

  constructor(private readonly file: string) {}

  async size(): Promise<number | undefined> {
    const fh = await this.open();
    if (!fh) return undefined;
    const st = await fh.stat();
    return st.size;
  }

  async read(start: number, end: number): Promise<Uint8Array> {
    const fh = await this.open();
    if (!fh) return new Uint8Array(0);
    const out = Buffer.allocUnsafe(end - start);
    return out.subarray(0, await readFullAt(fh, out, start));
  }

  async close(): Promise<void> {
    const fh = this.handle;
    this.handle = undefined;
    await fh?.close();
  }

  private async open(): Promise<FileHandle | undefined> {
    if (this.handle || this.gone) return this.handle;
    const fh = await openNoFollow(this.file);
    if (!fh) { this.gone = true; return undefined; }
    if (!(await fh.stat()).isFile()) { await fh.close(); this.gone = true; return undefined; }
    this.handle = fh;
    return fh;
  }
}

/** An artifact file opened (not following a symlink) for a pattern search's workers; undefined when it is no regular file. */
async function openSearchable(file: string): Promise<OpenedFile | undefined> {
  const fh = await openNoFollow(file);
  return fh ? openedRegular(fh) : undefined;
}

/** Where O_NOFOLLOW is missing (Windows), an lstat check stands in for it. */
const NOFOLLOW = fsc.O_NOFOLLOW ?? 0;
const NONBLOCK = fsc.O_NONBLOCK ?? 0;
/** Errors that mean "there is no regular file here we may read". */
const GONE = new Set(['ENOENT', 'ELOOP', 'ENOTDIR', 'EISDIR', 'EMLINK', 'ENXIO']);

async function openNoFollow(file: string): Promise<FileHandle | undefined> {
  try {
    if (NOFOLLOW === 0 && (await fsp.lstat(file)).isSymbolicLink()) return undefined;
    return await fsp.open(file, fsc.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if (GONE.has((e as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw new EvidenceError('backend', 'artifact store could not read the artifact');
  }
}

/** Reads a small metadata file without following a symlink; undefined when absent. */
async function readNoFollow(file: string): Promise<Uint8Array | undefined> {
  const fh = await openNoFollow(file);
  if (!fh) return undefined;
  try {
    if (!(await fh.stat()).isFile()) return undefined;
    return await fh.readFile();
  } finally {
    await fh.close();
  }
}

async function writeAll(fh: FileHandle, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, off, bytes.length - off, null);
    off += bytesWritten;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fsp.lstat(file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** The directory must exist and be a real directory, not a symlink to one. */
async function requireDirectory(dir: string, what: string): Promise<void> {
  let st;
  try {
    st = await fsp.lstat(dir);
  } catch {
    throw new EvidenceError('invalidArgument', `${what} does not exist`);
  }
  if (st.isSymbolicLink()) throw new EvidenceError('invalidArgument', `${what} must not be a symlink`);
  if (!st.isDirectory()) throw new EvidenceError('invalidArgument', `${what} must be a directory`);
}

async function mkdirOnce(dir: string): Promise<void> {
  try {
    await fsp.mkdir(dir, { mode: 0o700 });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** Removes temporary files a crashed writer left behind (old enough to be abandoned). */
async function removeStaleTemps(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await fsp.readdir(dir)) {
    // Its own temporary files, and a rewrite of the verified marks a killed process left (docs/contracts.md §1.1).
    if (!name.startsWith(TEMP_PREFIX) && !name.startsWith(`${VERIFIED_MARKS_FILE}~`)) continue;
    const file = path.join(dir, name);
    const st = await fsp.lstat(file).catch(() => undefined);
    if (st && now - st.mtimeMs > STALE_TEMP_MS) await fsp.rm(file, { force: true });
  }
}

/** Makes a rename durable; directories cannot be opened for sync everywhere (Windows). */
async function syncDirectory(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await fsp.open(dir, fsc.O_RDONLY);
    await fh.sync();
  } catch {
    // Best effort: the artifact's own bytes were already synced.
  } finally {
    await fh?.close();
  }
}

/**
 * `verifyAll` plus an explicit size check: for an empty manifest `streamVerified` has no
 * range to read and never looks at the size, so a missing file or a symlink under an
 * empty artifact's name would otherwise pass.
 */
async function verifyWhole(source: RangeSource, m: Manifest): Promise<boolean> {
  if ((await source.size()) !== m.byteCount) return false;
  return verifyAll(source, m);
}




function decodeOrUndefined(bytes: Uint8Array): Manifest | undefined {
  try { return decodeManifest(bytes); } catch { return undefined; }
}

