/**
 * Small files beside the LMDB environment (the store identity, the durable high-water mark) are
 * replaced atomically and durably: written to a temporary name, fsynced, renamed over the old
 * file, and the directory fsynced, so a crash leaves the old or the new content, never a torn
 * file (the POSIX rename recipe; LMDB's own files are not touched here).
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open as openAsync, rename as renameAsync, unlink as unlinkAsync } from 'node:fs/promises';
import { dirname } from 'node:path';

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `path` with `text` (UTF-8) atomically and durably, synchronously. Throws the
 * filesystem's error (e.g. `ENOSPC`, `EACCES`); the old file is then unchanged.
 */
export function writeFileDurablySync(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(temp, 'w', 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // never created, or already renamed
    }
    throw error;
  }
  fsyncDir(dirname(path));
}

/** `writeFileDurablySync` without blocking the event loop (same guarantees and errors). */
export async function writeFileDurably(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    const handle = await openAsync(temp, 'w', 0o644);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await renameAsync(temp, path);
  } catch (error) {
    await unlinkAsync(temp).catch(() => undefined);
    throw error;
  }
  const dir = await openAsync(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** The text of `path`, or undefined if it does not exist. Other errors are thrown. */
export function readFileIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
