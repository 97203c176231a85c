/**
 * Record versions: `evolve` applies only record types and versions this parley reads
 * (domain/record-versions.ts), refuses any other with a clear `UnknownRecordError` before touching
 * the state, and a store holding such a record refuses to start (recovery names the seq).
 */
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evolve } from '../../src/domain/evolve.js';
import { RECORD_VERSIONS, UnknownRecordError } from '../../src/domain/record-versions.js';
import type { RealmRecord } from '../../src/domain/records.js';
import { RealmRegistry } from '../../src/realm/realm-registry.js';
import { RealmUrls } from '../../src/realm/realm-urls.js';
import { createDemoRealm } from '../../src/realm/demo-realm.js';
import { AppendLog } from '../../src/storage/append-log.js';
import { openStore } from '../../src/storage/lmdb.js';
import { fingerprint, fixedContext, smallRealm } from '../support/realm-fixture.js';

/** Applies a record that is not a valid `RealmRecord` (as a store from another parley may hold). */
function evolveRaw(state: Parameters<typeof evolve>[0], record: object): void {
  evolve(state, record as RealmRecord);
}

function thrown(fn: () => void): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

t.test('every record type has its versions listed, and refuses any other version', async (t) => {
  const types = Object.keys(RECORD_VERSIONS);
  t.ok(types.length >= 38, `${types.length} record types`);
  const { state } = smallRealm();
  const before = fingerprint(state);
  for (const type of types) {
    const error = thrown(() => evolveRaw(state, { type, v: 99 }));
    t.ok(error instanceof UnknownRecordError, `${type} v99 is refused`);
    t.match((error as Error).message, new RegExp(`^record ${type} has version 99; this parley reads version 1: written by a newer parley\\?$`));
    const missing = thrown(() => evolveRaw(state, { type }));
    t.match((missing as Error).message, `record ${type} has version undefined`, `${type} without v is refused`);
  }
  t.equal(fingerprint(state), before, 'state unchanged after the refused records');
});

t.test('an unknown record type is refused before anything changes', async (t) => {
  const { state } = smallRealm();
  const before = fingerprint(state);
  for (const type of ['from_the_future', 'toString', '__proto__', 42, undefined]) {
    const error = thrown(() => evolveRaw(state, { type, v: 1 }));
    t.ok(error instanceof UnknownRecordError, `type ${String(type)}`);
    t.match((error as Error).message, /^unknown record type .*: written by a newer parley\?$/);
  }
  t.equal(fingerprint(state), before, 'state unchanged');
});

t.test('a known version still applies', async (t) => {
  const { state, ids } = smallRealm();
  evolve(state, { type: 'user_status_set', v: 1, userId: ids.member, statusText: 'on a boat' });
  t.equal(state.userStatus.get(ids.member)?.statusText, 'on a boat');
});

t.test('a store holding a record from a newer parley refuses to start, naming the record', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-record-versions-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const options = { dataDir, urls: RealmUrls.parse('http://example.com'), ctx: fixedContext(), snapshotPolicy: { everyRecords: 1_000_000, everySeconds: 3600 } };
  const live = await RealmRegistry.open(options);
  const realm = await createDemoRealm(live, 'not-a-real-hash');
  const realmId = realm.state.id;
  const hamlet = realm.state.usersByEmail.get('hamlet@zulip.com')!;
  await live.close();

  const store = openStore(dataDir);
  const log = new AppendLog(store);
  const seq = await log.append(realmId, [{ type: 'user_status_set', v: 2, userId: hamlet, statusText: 'from the future' }]);
  await store.close();

  let error: unknown;
  try {
    const reopened = await RealmRegistry.open(options);
    await reopened.close();
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof Error, 'opening fails');
  t.match(
    (error as Error).message,
    `replaying log record seq ${seq} (type user_status_set) failed: record user_status_set has version 2; this parley reads version 1`,
  );
});
