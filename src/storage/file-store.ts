/**
 * The content-addressed file store for uploads, avatars and custom emoji (Zulip keeps these in
 * its upload backend, zerver/lib/upload/local.py LocalUploadBackend; here the realm log's records
 * are the truth and the bytes live beside the LMDB environment).
 *
 * Layout under `<dataDir>/files/`:
 * - `sha256/<2 hex>/<64 hex>`: one file per distinct content, named by its SHA-256;
 * - `tmp/`: uploads being written. On `put` the bytes go to a fresh temp name, are hashed on the
 *   way, fsynced, then renamed to their content path and the directory fsynced: a crash leaves a
 *   temp file (garbage, removed by `sweep`) or a complete file, never a torn one.
 *
 * Paths are only ever built from a validated 64-hex digest (`isSha256`), never from user input,
 * so no crafted name can reach outside the store. The caller appends its record (which names the
 * digest) only after `put` resolved; a stored file that no record names is garbage and `sweep`
 * removes it (the caller says which digests are referenced).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';

/** Where a file's bytes are: the SHA-256 (lower-case hex) and the size in bytes. */
export interface StoredFile {
  readonly sha256: string;
  readonly size: number;
}

/** A file written and fsynced under a temp name, not yet visible under its digest (`FileStore.stage`). */
export interface StagedFile extends StoredFile {
  /** Makes it visible under `sha256/` durably (rename + directory fsync). Idempotent. */
  commit(): Promise<void>;
  /** Removes the temp file. Idempotent; nothing after `commit`. */
  discard(): Promise<void>;
  /**
   * The whole content, from the temp file (or the committed one): for small files only (avatars
   * and emoji, at most a few MiB, decoded before anything is kept). Rejects after `discard`.
   */
  read(): Promise<Buffer>;
}

/** `put` rejects with this when the source exceeds `maxBytes`; nothing is stored. */
export class FileTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`file larger than ${maxBytes} bytes`);
    this.name = 'FileTooLarge';
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The store's folder inside the data directory, and its temp area (both `/`-separated, relative). */
export const FILE_STORE_DIR = 'files';
export const FILE_STORE_TEMP_DIR = 'files/tmp';

/** True for a lower-case 64-hex SHA-256 digest: the only strings the store turns into paths. */
export function isSha256(value: string): boolean {
  return SHA256_HEX.test(value);
}

/** Options of `FileStore.put`. */
export interface PutOptions {
  /** Upper bound in bytes: more → `FileTooLarge`, the temp file removed. Default unbounded. */
  readonly maxBytes?: number;
}

/** A source of bytes for `put`: a whole buffer, a Node stream, or any async iterable of chunks. */
export type FileSource = Uint8Array | Readable | AsyncIterable<Uint8Array>;

/** The content-addressed file store (see the module header). */
export class FileStore {
  /** `<dataDir>/files`. */
  readonly root: string;
  private readonly tmpDir: string;
  private readonly shaDir: string;
  private ready: Promise<void> | null = null;

  /** A store under `<dataDir>/files` (directories are created on first use). */
  constructor(dataDir: string) {
    this.root = join(dataDir, FILE_STORE_DIR);
    this.tmpDir = join(dataDir, FILE_STORE_TEMP_DIR);
    this.shaDir = join(this.root, 'sha256');
  }

  private ensureDirs(): Promise<void> {
    this.ready ??= (async () => {
      await mkdir(this.tmpDir, { recursive: true });
      await mkdir(this.shaDir, { recursive: true });
    })();
    return this.ready;
  }

  /**
   * Writes `source` durably and returns its digest and size (bytes): `stage` then `commit`.
   * Rejects like `stage`; resolves only after the file and its directory entry are fsynced.
   */
  async put(source: FileSource, options: PutOptions = {}): Promise<StoredFile> {
    const staged = await this.stage(source, options);
    await staged.commit();
    return { sha256: staged.sha256, size: staged.size };
  }

  /**
   * Writes `source` to a temp file (hashed on the way, fsynced) without making it visible: the
   * caller then `commit`s it (renamed to its content path, directory fsynced; the same content
   * twice is stored once) or `discard`s it (both idempotent; discard after commit does nothing).
   * Streams: at most one chunk is held in memory. Rejects with `FileTooLarge` past
   * `options.maxBytes`, or with the filesystem's error (ENOSPC…); the temp file is then removed.
   */
  async stage(source: FileSource, options: PutOptions = {}): Promise<StagedFile> {
    await this.ensureDirs();
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    const temp = join(this.tmpDir, `${process.pid}-${randomBytes(12).toString('hex')}`);
    const hash = createHash('sha256');
    let size = 0;
    const handle = await open(temp, 'wx', 0o644);
    try {
      try {
        const chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> =
          source instanceof Uint8Array ? [source] : (source as AsyncIterable<Uint8Array>);
        for await (const chunk of chunks) {
          size += chunk.byteLength;
          if (size > maxBytes) throw new FileTooLarge(maxBytes);
          hash.update(chunk);
          let offset = 0;
          while (offset < chunk.byteLength) {
            const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
            offset += bytesWritten;
          }
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    const sha256 = hash.digest('hex');
    let state: 'staged' | 'committed' | 'discarded' = 'staged';
    const target = this.pathOf(sha256);
    return {
      sha256,
      size,
      commit: async () => {
        if (state !== 'staged') {
          if (state === 'discarded') throw new Error('staged file already discarded');
          return;
        }
        const dir = dirname(target);
        await mkdir(dir, { recursive: true });
        await rename(temp, target);
        await fsyncDir(dir);
        state = 'committed';
      },
      discard: async () => {
        if (state !== 'staged') return;
        state = 'discarded';
        await unlink(temp).catch(() => undefined);
      },
      read: async () => {
        if (state === 'discarded') throw new Error('staged file already discarded');
        return readFile(state === 'committed' ? target : temp);
      },
    };
  }

  /** The absolute path of a stored digest. Throws a TypeError for anything but a 64-hex digest. */
  pathOf(sha256: string): string {
    if (!isSha256(sha256)) throw new TypeError('not a SHA-256 digest');
    return join(this.shaDir, sha256.slice(0, 2), sha256);
  }

  /** Size in bytes of a stored digest, or undefined when the store does not hold it. */
  async size(sha256: string): Promise<number | undefined> {
    if (!isSha256(sha256)) return undefined;
    try {
      return (await stat(this.pathOf(sha256))).size;
    } catch {
      return undefined;
    }
  }

  /**
   * A read stream over a stored digest, optionally a byte range (`start`/`end` inclusive, as
   * `fs.createReadStream`). Undefined when the digest is not stored (or not a digest).
   */
  async openRead(sha256: string, range?: { start: number; end: number }): Promise<ReadStream | undefined> {
    if ((await this.size(sha256)) === undefined) return undefined;
    return createReadStream(this.pathOf(sha256), range ?? {});
  }

  /** Reads a whole stored file into memory (for small files: emoji, avatars). Undefined if absent. */
  async readAll(sha256: string): Promise<Buffer | undefined> {
    if (!isSha256(sha256)) return undefined;
    const handle = await open(this.pathOf(sha256), 'r').catch(() => undefined);
    if (handle === undefined) return undefined;
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /** Age in ms of a stored digest's file (since its last commit), or undefined when absent. */
  async ageMs(sha256: string): Promise<number | undefined> {
    if (!isSha256(sha256)) return undefined;
    try {
      return Date.now() - (await stat(this.pathOf(sha256))).mtimeMs;
    } catch {
      return undefined;
    }
  }

  /** Removes a stored digest (no error when absent). Only for digests no record names any more. */
  async remove(sha256: string): Promise<void> {
    if (!isSha256(sha256)) return;
    await rm(this.pathOf(sha256), { force: true });
  }

  /**
   * Garbage collection, run at start before requests are served: removes every temp file, and
   * every stored file whose digest `isReferenced` says no record names (the caller asks every
   * realm and every kind of file: uploads, avatars, emoji). Returns what it removed.
   */
  async sweep(isReferenced: (sha256: string) => boolean): Promise<{ temp: number; unreferenced: number }> {
    await this.ensureDirs();
    let temp = 0;
    for (const name of await readdir(this.tmpDir)) {
      await rm(join(this.tmpDir, name), { force: true, recursive: true });
      temp++;
    }
    let unreferenced = 0;
    for (const prefix of await readdir(this.shaDir)) {
      const dir = join(this.shaDir, prefix);
      for (const name of await readdir(dir).catch(() => [] as string[])) {
        if (isSha256(name) && isReferenced(name)) continue;
        await rm(join(dir, name), { force: true, recursive: true });
        unreferenced++;
      }
    }
    return { temp, unreferenced };
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
