import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { acquireDataDirLock, DataDirLockedError, LOCK_FILE_NAME } from '../../src/storage/data-dir-lock.js';



function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'parley-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Starts a child process that just sleeps; returns its pid and a way to end it. */
function sleeper(t: Test): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  t.teardown(stop);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => resolve({ pid: child.pid!, stop }));
  });
}

t.test('the lock file holds the pid and is removed on release', async (t) => {
  const dir = join(tempDir(t), 'nested', 'data.dir');
  const lock = acquireDataDirLock(dir);
  t.equal(lock.path, join(dir, LOCK_FILE_NAME));
  t.equal(readFileSync(lock.path, 'utf8').trim(), String(process.pid));
  lock.release();
  t.equal(existsSync(lock.path), false);
  lock.release(); // idempotent
  const again = acquireDataDirLock(dir);
  again.release();
});

t.test('a second acquire while the lock is held fails with a clear message', async (t) => {
  const dir = tempDir(t);
  const lock = acquireDataDirLock(dir);
  t.teardown(() => lock.release());
  t.throws(() => acquireDataDirLock(dir), {
    name: 'DataDirLockedError',
    message: `the data directory ${dir} is in use by a running parley server (pid ${process.pid})`,
  });
});

t.test('a lock held by another live process is respected', async (t) => {
  const dir = tempDir(t);
  const holder = await sleeper(t);
  writeFileSync(join(dir, LOCK_FILE_NAME), `${holder.pid}\n`);
  let error: unknown;
  try {
    acquireDataDirLock(dir);
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof DataDirLockedError, 'DataDirLockedError');
  t.equal((error as Error).message, `the data directory ${dir} is in use by a running parley server (pid ${holder.pid})`);
  t.equal(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8').trim(), String(holder.pid), 'the holder keeps its lock');
});

t.test('a stale lock from a dead process is taken over', async (t) => {
  const dir = tempDir(t);
  const holder = await sleeper(t);
  await holder.stop();
  writeFileSync(join(dir, LOCK_FILE_NAME), `${holder.pid}\n`);
  const lock = acquireDataDirLock(dir);
  t.equal(readFileSync(lock.path, 'utf8').trim(), String(process.pid));
  lock.release();

  writeFileSync(join(dir, LOCK_FILE_NAME), 'garbage');
  const lock2 = acquireDataDirLock(dir);
  t.equal(readFileSync(lock2.path, 'utf8').trim(), String(process.pid), 'an unreadable lock is taken over');
  lock2.release();

  writeFileSync(join(dir, LOCK_FILE_NAME), `${process.pid}\n`);
  const lock3 = acquireDataDirLock(dir);
  t.pass('a lock naming our own pid that we do not hold (pid reuse) is stale');
  lock3.release();
});

t.test('release leaves a lock that was taken over by someone else', async (t) => {
  const dir = tempDir(t);
  const lock = acquireDataDirLock(dir);
  writeFileSync(lock.path, '12345678\n');
  lock.release();
  t.equal(readFileSync(lock.path, 'utf8').trim(), '12345678');
});
