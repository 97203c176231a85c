/**
 * Handler-test fixtures: a deterministic context, a small realm built by running real commands
 * through `decide` + `evolve` (no actor, no storage), and a state fingerprint to assert that a
 * rejected command changed nothing.
 */
import { emptyRealmState, Role, type RealmState } from '../../src/domain/realm-state.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { evolve } from '../../src/domain/evolve.js';
import type { RealmRecord } from '../../src/domain/records.js';
import { decide, setupRunner } from '../../src/realm/apply-command.js';
import type { Command, CommandReply } from '../../src/realm/commands.js';
import type { CommandContext, RealmEvent } from '../../src/realm/decision.js';

/** A clock starting at 2023-11-14T22:13:20Z advancing 1 s per call, and counter-based tokens. */
export function fixedContext(start = 1_700_000_000): CommandContext {
  let t = start;
  let n = 0;
  return {
    now: () => t++,
    randomToken: (length) => String(++n).padStart(length, 'k').slice(-length),
  };
}

export { decide };

/** Runs `decide` and folds the records; throws if the command was rejected. */
export function run<C extends Command>(state: RealmState, command: C, ctx: CommandContext): CommandReply<C> {
  return setupRunner(state, ctx, [])(command);
}

/** Everything observable about a state, as a string (for "unchanged after an error"). */
export function fingerprint(state: RealmState): string {
  const { core, columns } = toSnapshot(state);
  const cols = Object.entries(columns).map(([name, c]) => {
    const values: number[] = [];
    for (let i = 0; i < c.length; i++) values.push(c.get(i));
    return [name, values];
  });
  return JSON.stringify([core, cols], (_k, v) => (v instanceof Set ? [...v] : v instanceof Map ? [...v] : v));
}

type Asserts = { equal(a: unknown, b: unknown, ...m: any[]): unknown; fail(...m: any[]): unknown };

/** Asserts that `cmd` fails with exactly `msg` and leaves the state exactly as it was. */
export function rejects(t: Asserts, state: RealmState, cmd: Command, ctx: CommandContext, msg: string) {
  const before = fingerprint(state);
  const result = decide(state, cmd, ctx);
  if (result.ok) return t.fail(`expected "${msg}", got success`);
  t.equal(result.error.message, msg, msg);
  t.equal(fingerprint(state), before, `state unchanged after "${msg}"`);
}

export interface SmallRealm {
  state: RealmState;
  ctx: CommandContext;
  ids: { owner: number; admin: number; member: number; other: number; guest: number; bot: number; deactivated?: number };
  streams: { general: number; secret: number; empty: number };
}

/**
 * A realm with an owner, admin, two members, a guest and a bot (owned by `member`); public channel
 * "general" (everyone but the guest subscribed), private "secret" (owner + member), public "empty"
 * with no subscribers.
 */
export function smallRealm(): SmallRealm {
  const ctx = fixedContext();
  const state = emptyRealmState(1);
  state.host = 'chat.example.com';
  run(state, { type: 'create_realm', subdomain: '', name: 'Test Org', description: '' }, ctx);
  const user = (email: string, fullName: string, role: (typeof Role)[keyof typeof Role], bot?: number) =>
    run(state, {
      type: 'create_user', email, fullName, role, passwordHash: null, isBot: bot !== undefined,
      botType: bot === undefined ? null : 1, botOwnerId: bot ?? null, timezone: '',
    }, ctx).userId;
  const owner = user('owner@example.com', 'Olivia Owner', Role.owner);
  const admin = user('admin@example.com', 'Adam Admin', Role.admin);
  const member = user('member@example.com', 'Mary Member', Role.member);
  const other = user('other@example.com', 'Otto Other', Role.member);
  const guest = user('guest@example.com', 'Gus Guest', Role.guest);
  const bot = user('bot@example.com', 'Test Bot', Role.member, member);
  const stream = (name: string, inviteOnly: boolean, subscriberIds: number[]) =>
    run(state, { type: 'create_channel', actorId: null, name, description: '', inviteOnly, isWebPublic: false, isDefault: false, subscriberIds }, ctx).streamId;
  const general = stream('general', false, [owner, admin, member, other]);
  const secret = stream('secret', true, [owner, member]);
  const empty = stream('empty', false, []);
  return { state, ctx, ids: { owner, admin, member, other, guest, bot }, streams: { general, secret, empty } };
}

/**
 * One field of a decided event's payload, read without narrowing the payload's union type first
 * (tests compare values; the payload's type is checked where the handler builds it).
 */
export function field(e: RealmEvent, name: string): unknown {
  const payload: Readonly<Record<string, unknown>> = e.payload;
  return payload[name];
}

/** A copy of `state` as its snapshot restores it (host and URL kept): where a replay check starts. */
export function snapshotCopy(state: RealmState): RealmState {
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(state.id, structuredClone(core), columns);
  copy.host = state.host;
  copy.url = state.url;
  return copy;
}

/**
 * Asserts that replaying `records` onto `base` (a {@link snapshotCopy} taken before them) and
 * restoring `state` from its snapshot both give `state` again. Returns the snapshot and the
 * restored state, for checks of older snapshot formats.
 */
export function checkReplayAndSnapshot(
  t: Asserts, base: RealmState, records: readonly RealmRecord[], state: RealmState,
): { core: ReturnType<typeof toSnapshot>['core']; columns: ReturnType<typeof toSnapshot>['columns']; restored: RealmState } {
  for (const r of records) evolve(base, r);
  t.equal(fingerprint(base), fingerprint(state), 'replayed state equals the live one');
  const { core, columns } = toSnapshot(state);
  const restored = fromSnapshot(state.id, structuredClone(core), columns);
  restored.host = state.host;
  t.equal(fingerprint(restored), fingerprint(state), 'snapshot round trip');
  return { core, columns, restored };
}
