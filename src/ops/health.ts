/**
 * `GET /health` (issue 13 §2), Zulip's unauthenticated health endpoint (zerver/views/health.py
 * `health`: each check raises ServerNotReadyError naming the failing component). parley has no
 * PostgreSQL/RabbitMQ/Redis/memcached; what can fail is the storage and the realm actors:
 *
 * 1. the data directory accepts a write (a probe file is created, fsynced and removed: catches a
 *    deleted or unmounted directory, a read-only remount, a full disk, lost permissions);
 * 2. every realm of the store is loaded and its actor running (a realm that lost durability stops
 *    accepting commands).
 *
 * Healthy → 200 `{"result":"success","msg":""}`; otherwise 503 `SERVER_NOT_READY` whose `msg`
 * names what is wrong. During shutdown the HTTP layer already answers 503 for every request.
 */
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Errors, type ZulipError } from '../errors.js';

/** Name of the probe file written (and removed) in the data directory by each health check. */
export const HEALTH_PROBE_FILE = '.parley-health-probe';

/** What the health check looks at. */
export interface HealthDeps {
  /** Absolute path of the data directory. */
  dataDir: string;
  /** Every realm of the store, with whether its actor accepts commands. */
  realms(): Iterable<{ readonly id: number; readonly subdomain: string; readonly running: boolean }>;
  /** Number of realms registered in the store (all must be loaded). */
  registeredRealms(): number;
}

/** Error text of a failed filesystem call: `EACCES` etc. plus the system message. */
function cause(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code !== undefined ? `${e.code}: ${e.message}` : String(error);
}

/** Checks that `dir` accepts a durable write. Returns the problem, or null. */
function probeWritable(dir: string): string | null {
  const path = join(dir, HEALTH_PROBE_FILE);
  try {
    const fd = openSync(path, 'w', 0o600);
    try {
      writeSync(fd, 'ok');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    unlinkSync(path);
    return null;
  } catch (error) {
    return `Storage is not writable: data directory ${dir} (${cause(error)})`;
  }
}

/** Runs the checks in order; returns the first failure as a 503 error, or null when healthy. */
export function checkHealth(deps: HealthDeps): ZulipError | null {
  const storage = probeWritable(deps.dataDir);
  if (storage !== null) return Errors.unhealthy(storage);
  let loaded = 0;
  for (const realm of deps.realms()) {
    loaded++;
    if (!realm.running) {
      const name = realm.subdomain === '' ? 'the root organization' : `organization '${realm.subdomain}'`;
      return Errors.unhealthy(`Realm ${realm.id} (${name}) is not running`);
    }
  }
  let registered: number;
  try {
    registered = deps.registeredRealms();
  } catch (error) {
    return Errors.unhealthy(`Storage is not readable: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (loaded < registered) return Errors.unhealthy(`Only ${loaded} of ${registered} realms are loaded`);
  return null;
}
