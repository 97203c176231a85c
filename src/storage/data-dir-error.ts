/**
 * The data directory cannot be used as it is: a file is missing, empty, damaged, belongs to
 * another store, or is older than what the server already acknowledged. The server refuses to
 * start (never a half-loaded or brand-new store in its place) and the message names the file and
 * says what to do, e.g.
 * `the data directory /srv/parley is damaged: /srv/parley/data.mdb is empty, but parley-store.json
 * says this directory holds store 5f0c… (created 2026-11-25T13:00:00.000Z). Restore the data
 * directory from a backup.`
 */
export class DataDirError extends Error {
  constructor(
    /** Absolute path of the data directory. */
    readonly dataDir: string,
    /** Absolute path of the file at fault. */
    readonly file: string,
    /** What is wrong with it (one sentence, no trailing period). */
    readonly problem: string,
    /** What to do; defaults to restoring from a backup. */
    advice = 'Restore the data directory from a backup (or move it away to start an empty store).',
  ) {
    super(`the data directory ${dataDir} is damaged: ${problem}. ${advice}`);
    this.name = 'DataDirError';
  }
}
