/**
 * Drafts (https://zulip.com/api/get-drafts, https://zulip.com/api/edit-draft,
 * https://zulip.com/api/create-drafts, https://zulip.com/api/register-queue,
 * https://zulip.com/api/rest-error-handling): `GET/POST /drafts`,
 * `PATCH/DELETE /drafts/{draft_id}`. Every validation error with its exact string and "nothing was
 * created or changed", another user's draft → 404 and unchanged, ids in input order, the default
 * timestamp, `drafts` events via verifyAction, `enable_drafts_synchronization` (errors first;
 * turning it off deletes the drafts), persistence across a restart, replay of the records, and
 * the handlers on a small realm.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startTestServer, type Caller, basicCall, loginApiKey } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { checkReplayAndSnapshot, decide, rejects, run, smallRealm, snapshotCopy } from '../support/realm-fixture.js';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { startServer } from '../../src/main.js';
import { fromSnapshot } from '../../src/domain/realm-snapshot.js';
import { draftsForFetch } from '../../src/domain/drafts.js';
import type { RealmRecord } from '../../src/domain/records.js';
import { setupRunner } from '../../src/realm/apply-command.js';
import type { Command } from '../../src/realm/commands.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const notFound = bad('Draft does not exist');
const getDrafts = async (c: Caller) => (await c.call('GET', '/drafts')).body;

// Demo realm ids (test/support/test-server.ts): users and channels.
const HAMLET = 4;
const OTHELLO = 5;
const CORDELIA = 6;
const AARON = 8;
const VERONA = 1;
const DENMARK = 2;
const CORE_TEAM = 6;

const streamDraft = (extra: Record<string, unknown> = {}) => ({ type: 'stream', to: [VERONA], topic: 'welcome', content: 'hello', timestamp: 1_600_000_000, ...extra });

t.test('create, list, edit and delete drafts over HTTP', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');

  t.same(await getDrafts(hamlet), { result: 'success', msg: '', count: 0, drafts: [] }, 'none at first');
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['drafts'] })).body.drafts, [], 'register: none');

  // POST four drafts: ids in input order, the recipient resolved, the content stripped.
  const input = [
    { type: 'stream', to: [DENMARK], topic: '  castle  ', content: '  Something is rotten  \n', timestamp: 1_600_000_300.9 },
    { type: 'private', to: [OTHELLO, HAMLET, CORDELIA, OTHELLO], topic: 'ignored', content: 'to two', timestamp: 1_600_000_100 },
    { type: '', to: [VERONA], topic: 'ignored', content: 'nowhere', timestamp: 1_600_000_200 },
    { type: 'private', to: [], topic: 'ignored', content: 'nobody yet', timestamp: 1_600_000_400 },
  ];
  const created = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', '/drafts', { drafts: input }), numEvents: 1, stateChangeExpected: true });
  t.same(created.actionResult.body, { result: 'success', msg: '', ids: [1, 2, 3, 4] }, 'ids in input order');
  const wire = [
    { id: 1, type: 'stream', to: [DENMARK], topic: '  castle  ', content: 'Something is rotten', timestamp: 1_600_000_300 },
    { id: 2, type: 'private', to: [OTHELLO, CORDELIA], topic: '', content: 'to two', timestamp: 1_600_000_100 },
    { id: 3, type: '', to: [], topic: '', content: 'nowhere', timestamp: 1_600_000_200 },
    { id: 4, type: '', to: [], topic: '', content: 'nobody yet', timestamp: 1_600_000_400 },
  ];
  t.same(created.events[0], { id: created.events[0]!.id, type: 'drafts', op: 'add', drafts: wire }, 'one add event with the drafts');
  const [d1, d2, d3, d4] = wire as [(typeof wire)[0], (typeof wire)[0], (typeof wire)[0], (typeof wire)[0]];
  t.same((await getDrafts(hamlet)).drafts, [d2, d3, d1, d4], 'GET: least recently edited first');
  t.same((await getDrafts(hamlet)).count, 4);
  t.same(created.after.drafts, [d4, d1, d3, d2], 'register: most recently edited first');

  // A draft to oneself; the default timestamp is the server's clock (seconds).
  const before = Math.floor(Date.now() / 1000);
  const self = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('POST', '/drafts', { drafts: [{ type: 'private', to: [HAMLET], topic: '', content: 'note to self' }] }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  const after = Math.ceil(Date.now() / 1000);
  t.same(self.actionResult.body.ids, [5]);
  const d5 = self.events[0]!.drafts[0];
  t.same({ ...d5, timestamp: 0 }, { id: 5, type: 'private', to: [HAMLET], topic: '', content: 'note to self', timestamp: 0 }, 'to oneself → [own id]');
  t.ok(Number.isInteger(d5.timestamp) && d5.timestamp >= before && d5.timestamp <= after, 'timestamp filled in by the server');

  // Long content and topics are truncated, not rejected.
  const long = await hamlet.call('POST', '/drafts', { drafts: [{ type: 'stream', to: [VERONA], topic: 'x'.repeat(70), content: 'a'.repeat(10_050) }] });
  t.same(long.body.ids, [6]);
  const d6 = (await getDrafts(hamlet)).drafts.find((d: { id: number }) => d.id === 6);
  t.equal(d6.topic, 'x'.repeat(57) + '...');
  t.equal(d6.content, 'a'.repeat(9980) + '\n[message truncated]');

  // An empty list creates nothing (Zulip still notifies), an absent one too (seed: optional).
  const empty = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', '/drafts', { drafts: [] }), numEvents: 1, stateChangeExpected: false });
  t.same(empty.actionResult.body, { result: 'success', msg: '', ids: [] });
  t.same(empty.events[0], { id: empty.events[0]!.id, type: 'drafts', op: 'add', drafts: [] });
  t.same((await hamlet.call('POST', '/drafts', {})).body, { result: 'success', msg: '', ids: [] });
  t.equal((await getDrafts(hamlet)).count, 6);

  // PATCH: a full replacement (recipient, topic, content, time).
  const edited = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/drafts/2', { draft: streamDraft({ content: ' edited ', timestamp: 1_600_000_500 }) }),
    numEvents: 1,
    stateChangeExpected: true,
  });
  t.same(edited.actionResult.body, { result: 'success', msg: '' });
  const d2b = { id: 2, type: 'stream', to: [VERONA], topic: 'welcome', content: 'edited', timestamp: 1_600_000_500 };
  t.same(edited.events[0], { id: edited.events[0]!.id, type: 'drafts', op: 'update', draft: d2b });
  t.same((await getDrafts(hamlet)).drafts.slice(0, 3), [d3, d1, d4], 'the edited draft moved in the edit-time order');
  const noTime = await hamlet.call('PATCH', '/drafts/3', { draft: { type: 'private', to: [OTHELLO], topic: 't', content: 'x' } });
  t.same(noTime.body, { result: 'success', msg: '' });
  const d3b = (await getDrafts(hamlet)).drafts.find((d: { id: number }) => d.id === 3);
  t.same({ ...d3b, timestamp: 0 }, { id: 3, type: 'private', to: [OTHELLO], topic: '', content: 'x', timestamp: 0 });
  t.ok(d3b.timestamp >= before, 'PATCH without timestamp: now');

  // DELETE.
  const deleted = await verifyAction(t, s, hamlet, { action: () => hamlet.call('DELETE', '/drafts/1'), numEvents: 1, stateChangeExpected: true });
  t.same(deleted.actionResult.body, { result: 'success', msg: '' });
  t.same(deleted.events[0], { id: deleted.events[0]!.id, type: 'drafts', op: 'remove', draft_id: 1 });
  t.same((await getDrafts(hamlet)).drafts.map((d: { id: number }) => d.id).sort(), [2, 3, 4, 5, 6]);
  const again = await hamlet.call('DELETE', '/drafts/1');
  t.equal(again.status, 404);
  t.same(again.body, notFound, 'deleted twice → 404');
});

t.test('validation errors: exact strings, nothing created or changed, no events', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  t.equal((await desdemona.call('DELETE', `/users/${AARON}`)).status, 200, 'aaron deactivated');
  const seeded = await hamlet.call('POST', '/drafts', { drafts: [streamDraft()] });
  t.same(seeded.body.ids, [1]);
  const baseline = await getDrafts(hamlet);

  const ok = streamDraft();
  const { timestamp: _omit, ...noTimestamp } = ok;
  void _omit;
  const cases: Array<[string, unknown, string]> = [
    ['invalid JSON', '[{', 'drafts is not valid JSON'],
    ['not a list', { type: 'stream' }, 'drafts is not a list'],
    ['item not a dict', [5], 'drafts[0] is not a dict'],
    ['bad type', [streamDraft({ type: 'dm' })], 'Invalid drafts[0]["type"]'],
    ['to not a list', [streamDraft({ to: 1 })], 'drafts[0]["to"] is not a list'],
    ['to with a string', [streamDraft({ to: [1, 'a'] })], 'drafts[0]["to"][1] is not an integer'],
    ['to with a bool', [streamDraft({ to: [true] })], 'drafts[0]["to"][0] is not an integer'],
    ['missing topic', [{ type: 'stream', to: [VERONA], content: 'x' }], 'drafts[0]["topic"] field is missing'],
    ['missing type', [{ to: [VERONA], topic: '', content: 'x' }], 'drafts[0]["type"] field is missing'],
    ['topic not a string', [streamDraft({ topic: 5 })], 'drafts[0]["topic"] is not a string'],
    ['missing content', [{ type: '', to: [], topic: '' }], 'drafts[0]["content"] field is missing'],
    ['content not a string', [streamDraft({ content: null })], 'drafts[0]["content"] is not a string'],
    ['blank content', [streamDraft({ content: ' \n\t\u00a0 ' })], 'drafts[0]["content"] cannot be blank'],
    ['timestamp a string', [streamDraft({ timestamp: 'now' })], 'drafts[0]["timestamp"] is not a float'],
    ['timestamp past year 9999', [streamDraft({ timestamp: 1e300 })], 'drafts[0]["timestamp"] is too large'],
    ['unknown key', [{ ...ok, id: 7 }], 'Argument "id" at drafts[0] is unexpected'],
    ['second draft invalid', [ok, streamDraft({ type: 'x' })], 'Invalid drafts[1]["type"]'],
    ['content with a null byte', [streamDraft({ content: 'a\u0000b' })], 'Message must not contain null bytes'],
    ['negative timestamp', [streamDraft({ timestamp: -1 })], 'Timestamp must not be negative.'],
    ['topic with a null byte', [streamDraft({ topic: 'a\u0000b' })], 'Topic must not contain null bytes'],
    ['channel draft without a channel', [streamDraft({ to: [] })], 'Must specify exactly 1 channel ID for channel messages'],
    ['channel draft with two channels', [streamDraft({ to: [VERONA, DENMARK] })], 'Must specify exactly 1 channel ID for channel messages'],
    ['unknown channel', [streamDraft({ to: [999] })], 'Invalid channel ID'],
    ['unknown user', [{ ...noTimestamp, type: 'private', to: [OTHELLO, 999] }], 'Invalid user ID 999'],
    ['deactivated user', [{ ...noTimestamp, type: 'private', to: [AARON] }], "'aaron@zulip.com' is no longer using Zulip."],
    ['valid then invalid: nothing created', [ok, ok, streamDraft({ to: [] })], 'Must specify exactly 1 channel ID for channel messages'],
  ];
  for (const [label, drafts, msg] of cases) {
    const r = await verifyAction(t, s, hamlet, { action: () => hamlet.call('POST', '/drafts', { drafts }), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, `${label}: 400`);
    t.same(r.actionResult.body, bad(msg), `${label}: ${msg}`);
  }
  t.same(await getDrafts(hamlet), baseline, 'nothing created after POST errors');

  // PATCH: the same parsing (variable `draft`), then existence, then the further validation.
  const patchCases: Array<[string, Record<string, unknown>, number, Record<string, unknown>]> = [
    ['missing draft', {}, 400, { result: 'error', msg: "Missing 'draft' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'draft' }],
    ['invalid JSON', { draft: '{' }, 400, bad('draft is not valid JSON')],
    ['a list', { draft: [ok] }, 400, bad('draft is not a dict')],
    ['bad type', { draft: streamDraft({ type: 'dm' }) }, 400, bad('Invalid draft["type"]')],
    ['to element', { draft: streamDraft({ to: ['1'] }) }, 400, bad('draft["to"][0] is not an integer')],
    ['blank content', { draft: streamDraft({ content: '   ' }) }, 400, bad('draft["content"] cannot be blank')],
    ['id key', { draft: { ...ok, id: 1 } }, 400, bad('Argument "id" at draft is unexpected')],
    ['negative timestamp', { draft: streamDraft({ timestamp: -5 }) }, 400, bad('Timestamp must not be negative.')],
    ['two channels', { draft: streamDraft({ to: [VERONA, DENMARK] }) }, 400, bad('Must specify exactly 1 channel ID for channel messages')],
    ['unknown user', { draft: { ...ok, type: 'private', to: [999] } }, 400, bad('Invalid user ID 999')],
  ];
  for (const [label, params, status, body] of patchCases) {
    const r = await verifyAction(t, s, hamlet, { action: () => hamlet.call('PATCH', '/drafts/1', params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, status, `PATCH ${label}: ${status}`);
    t.same(r.actionResult.body, body, `PATCH ${label}`);
  }
  // Existence is checked after parsing but before the further validation.
  const unknown = await hamlet.call('PATCH', '/drafts/999', { draft: streamDraft({ to: [] }) });
  t.equal(unknown.status, 404);
  t.same(unknown.body, notFound, 'unknown draft → 404 before the channel check');
  t.same((await hamlet.call('PATCH', '/drafts/999', { draft: streamDraft({ type: 'x' }) })).body, bad('Invalid draft["type"]'), 'parsing before existence');
  t.same(await getDrafts(hamlet), baseline, 'nothing changed after PATCH errors');
});

t.test("another user's drafts are invisible: 404 and unchanged", async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  const othello = await s.as('othello@zulip.com');
  t.same((await hamlet.call('POST', '/drafts', { drafts: [streamDraft({ to: [CORE_TEAM], topic: 'secret plans' })] })).body.ids, [1]);
  const hamletsDrafts = await getDrafts(hamlet);
  t.equal(hamletsDrafts.count, 1);
  t.same(await getDrafts(othello), { result: 'success', msg: '', count: 0, drafts: [] }, "othello does not see hamlet's draft");

  const edit = await verifyAction(t, s, othello, { action: () => othello.call('PATCH', '/drafts/1', { draft: streamDraft() }), numEvents: 0, stateChangeExpected: false });
  t.equal(edit.actionResult.status, 404);
  t.same(edit.actionResult.body, notFound);
  const del = await verifyAction(t, s, othello, { action: () => othello.call('DELETE', '/drafts/1'), numEvents: 0, stateChangeExpected: false });
  t.equal(del.actionResult.status, 404);
  t.same(del.actionResult.body, notFound);
  t.same(await getDrafts(hamlet), hamletsDrafts, "hamlet's draft unchanged");

  // A private channel othello cannot access is an invalid channel for his drafts.
  const secret = await othello.call('POST', '/drafts', { drafts: [streamDraft({ to: [CORE_TEAM] })] });
  t.same(secret.body, bad('Invalid channel ID'));
  t.equal((await getDrafts(othello)).count, 0);

  // Events go to the owner only: othello's queue stays quiet while hamlet edits.
  const quiet = await verifyAction(t, s, othello, { action: () => hamlet.call('DELETE', '/drafts/1'), numEvents: 0, stateChangeExpected: false });
  t.same(quiet.actionResult.body, { result: 'success', msg: '' });
  t.equal((await getDrafts(hamlet)).count, 0);
});

t.test('enable_drafts_synchronization: errors first; turning it off deletes the drafts', async (t) => {
  const s = await startTestServer(t);
  const hamlet = await s.as('hamlet@zulip.com');
  t.same((await hamlet.call('POST', '/drafts', { drafts: [streamDraft(), streamDraft({ timestamp: 1_600_000_001 })] })).body.ids, [1, 2]);

  const off = await verifyAction(t, s, hamlet, {
    action: () => hamlet.call('PATCH', '/settings', { enable_drafts_synchronization: false }),
    stateChangeExpected: true,
  });
  t.same(off.actionResult.body, { result: 'success', msg: '' });
  t.notOk(off.events.some((e) => e.type === 'drafts'), 'no drafts events (clients keep their local copies)');
  t.same(off.after.drafts, [], 'register: no drafts');

  const disabled = bad('User has disabled synchronizing drafts.');
  const calls: Array<[string, string, Record<string, unknown>]> = [
    ['GET', '/drafts', {}],
    ['POST', '/drafts', { drafts: [streamDraft()] }],
    ['POST', '/drafts', { drafts: 'not json' }],
    ['PATCH', '/drafts/1', { draft: streamDraft() }],
    ['PATCH', '/drafts/1', {}],
    ['DELETE', '/drafts/1', {}],
    ['DELETE', '/drafts/999', {}],
  ];
  for (const [method, path, params] of calls) {
    const r = await verifyAction(t, s, hamlet, { action: () => hamlet.call(method, path, params), numEvents: 0, stateChangeExpected: false });
    t.equal(r.actionResult.status, 400, `${method} ${path} ${JSON.stringify(params)}: 400`);
    t.same(r.actionResult.body, disabled, `${method} ${path}: the setting is checked before the parameters`);
  }

  // Turning it back on: the deleted drafts stay deleted; drafts work again.
  t.same((await hamlet.call('PATCH', '/settings', { enable_drafts_synchronization: true })).body, { result: 'success', msg: '' });
  t.same(await getDrafts(hamlet), { result: 'success', msg: '', count: 0, drafts: [] }, 'the drafts were deleted');
  t.same((await hamlet.call('POST', '/drafts', { drafts: [streamDraft()] })).body.ids, [3], 'ids are never reused');

  // Turning it off without drafts records nothing draft-related and still succeeds.
  const desdemona = await s.as('desdemona@zulip.com');
  t.same((await desdemona.call('PATCH', '/settings', { enable_drafts_synchronization: false })).body, { result: 'success', msg: '' });
  t.equal((await getDrafts(hamlet)).count, 1, "another user's setting does not touch hamlet's drafts");
});

t.test('drafts survive a restart', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-drafts-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = { ...DEFAULT_CONFIG, port: 0, dataDir, demoPassword: 'drafts-pw' };
  const call = (url: string, key: string, method: string, path: string, params: Record<string, unknown> = {}) => basicCall(url, 'hamlet@zulip.com', key, method, path, params);
  const first = await startServer(config);
  const key = await loginApiKey(first.url, 'hamlet@zulip.com', 'drafts-pw');
  t.same((await call(first.url, key, 'POST', '/drafts', { drafts: [streamDraft(), { type: 'private', to: [OTHELLO], topic: '', content: 'hi' }] })).ids, [1, 2]);
  t.equal((await call(first.url, key, 'PATCH', '/drafts/1', { draft: streamDraft({ content: 'edited' }) })).result, 'success');
  const before = await call(first.url, key, 'GET', '/drafts');
  await first.close();
  const second = await startServer(config);
  t.teardown(() => second.close());
  t.same(await call(second.url, key, 'GET', '/drafts'), before, 'same drafts after the restart');
  t.same((await call(second.url, key, 'POST', '/drafts', { drafts: [streamDraft()] })).ids, [3], 'the id counter was restored');
});

t.test('handlers on a small realm: records, events, replay, snapshot', async (t) => {
  const { state, ctx, ids, streams } = smallRealm();
  const base = snapshotCopy(state);
  const records: RealmRecord[] = [];
  const exec = setupRunner(state, ctx, records);
  const draft = (extra: Record<string, unknown> = {}) => ({ type: 'stream' as const, to: [streams.general], topic: 't', content: 'c', ...extra });

  // ids in input order; records carry everything evolve needs.
  const created = decide(state, { type: 'create_drafts', actorId: ids.member, drafts: [draft({ timestamp: 10.1234567 }), draft({ type: '', to: [] })] }, ctx);
  if (!created.ok) throw created.error;
  t.same(created.value.reply, { ids: [1, 2] });
  t.same(created.value.events.map((e) => e.userIds), [[ids.member]], 'one event, to the owner only');
  t.equal(created.value.records.length, 1);
  const rec = created.value.records[0] as Extract<RealmRecord, { type: 'drafts_created' }>;
  t.equal(rec.type, 'drafts_created');
  t.equal(rec.drafts[0]!.lastEditTime, 10.123457, 'rounded to 6 decimals');
  t.equal(typeof rec.drafts[1]!.lastEditTime, 'number', 'default timestamp from ctx.now()');

  t.same(exec({ type: 'create_drafts', actorId: ids.member, drafts: [draft({ timestamp: 10.1234567 }), draft({ type: 'private', to: [ids.other, ids.member] })] }), { ids: [1, 2] });
  t.same(exec({ type: 'create_drafts', actorId: ids.other, drafts: [draft()] }), { ids: [3] }, 'ids are realm-wide');
  exec({ type: 'edit_draft', actorId: ids.member, draftId: 1, draft: draft({ content: 'edited', timestamp: 20 }) });
  exec({ type: 'delete_draft', actorId: ids.member, draftId: 2 });
  t.same(draftsForFetch(state, ids.member), [{ id: 1, type: 'stream', to: [streams.general], topic: 't', content: 'edited', timestamp: 20 }]);

  // Errors leave the state exactly as it was.
  rejects(t, state, { type: 'edit_draft', actorId: ids.member, draftId: 3, draft: draft() }, ctx, 'Draft does not exist');
  rejects(t, state, { type: 'delete_draft', actorId: ids.member, draftId: 3 }, ctx, 'Draft does not exist');
  rejects(t, state, { type: 'create_drafts', actorId: ids.guest, drafts: [draft({ to: [streams.secret] })] }, ctx, 'Invalid channel ID');
  rejects(t, state, { type: 'create_drafts', actorId: ids.member, drafts: [draft(), draft({ timestamp: -1 })] }, ctx, 'Timestamp must not be negative.');
  const notFoundResult = decide(state, { type: 'delete_draft', actorId: ids.member, draftId: 99 }, ctx);
  t.equal(!notFoundResult.ok && notFoundResult.error.status, 404, 'Draft does not exist is a 404');

  // Replay onto the state before the records and the snapshot round trip; an older snapshot
  // without drafts loads with none.
  const { core, columns, restored } = checkReplayAndSnapshot(t, base, records, state);
  t.same(draftsForFetch(restored, ids.other).map((d) => d.id), [3]);
  const old = structuredClone(core) as unknown as Record<string, unknown>;
  delete old.drafts;
  t.same(draftsForFetch(fromSnapshot(state.id, old, columns), ids.member), [], 'older snapshot: no drafts');

  // Turning synchronisation off records the deletion (and nothing when there is nothing to delete).
  const off = decide(state, { type: 'update_settings', actorId: ids.member, settings: { enable_drafts_synchronization: false } } as Command, ctx);
  if (!off.ok) throw off.error;
  t.same(off.value.records.filter((r) => r.type === 'drafts_cleared'), [{ type: 'drafts_cleared', v: 1, userId: ids.member }]);
  t.notOk(off.value.events.some((e) => (e.payload as { type: string }).type === 'drafts'), 'no drafts events');
  run(state, { type: 'update_settings', actorId: ids.member, settings: { enable_drafts_synchronization: false } } as Command, ctx);
  t.same(draftsForFetch(state, ids.member), []);
  t.same(draftsForFetch(state, ids.other).length, 1, "others' drafts kept");
  rejects(t, state, { type: 'create_drafts', actorId: ids.member, drafts: [draft()] }, ctx, 'User has disabled synchronizing drafts.');
  const again = decide(state, { type: 'update_settings', actorId: ids.admin, settings: { enable_drafts_synchronization: false } } as Command, ctx);
  t.same(again.ok && again.value.records.filter((r) => r.type === 'drafts_cleared'), [], 'no drafts: no deletion record');
});
