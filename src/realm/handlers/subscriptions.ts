/**
 * `update_subscriptions` (subscribe, creating missing channels, and unsubscribe:
 * https://zulip.com/api/subscribe, https://zulip.com/api/unsubscribe,
 * https://zulip.com/api/update-subscriptions); the per-user settings are in
 * `subscription-properties.ts`.
 *
 * Events (https://zulip.com/api/get-events), in Zulip's order:
 * - `stream` op `create` `{streams: [stream]}` for a new channel, to every active user who can see
 *   it (with `subscriber_count: 0`: the subscriptions follow as `peer_add`), and for an existing
 *   private channel to a new subscriber who could not see it before;
 * - `subscription` op `add` `{subscriptions: [subscription with subscribers]}` to each new
 *   subscriber (one event listing all their new channels);
 * - `subscription` op `peer_add` `{stream_ids: [id], user_ids}` per channel, to the other active
 *   users who can see it;
 * - `subscription` op `remove` `{subscriptions: [{name, stream_id}]}` to each removed user,
 *   `peer_remove` per channel to the other users who can see it, and `stream` op `delete` to a
 *   removed user who can no longer see a private channel;
 * - `subscription` op `update` `{stream_id, property, value}` to the user (two for a mute change:
 *   legacy `in_home_view` first, then `is_muted`).
 */
import { channelCreatedNotice, newChannelsAnnouncement, subscribedYouNotices } from '../notifications.js';
import type { InternalSend } from '../commands.js';
import { ok, fail, Errors, type ZulipError } from '../../errors.js';
import { checkStreamName, findStreamByName, newSubscription, STREAM_COLORS, streamFromRecord } from '../../domain/streams.js';
import { streamToWire, subscriptionToWire, type SubscriptionObject } from '../../events/wire/streams.js';
import { defaultStreamGroups } from '../../domain/groups.js';
import { MAX_STREAM_DESCRIPTION_LENGTH, codePointLength } from '../../domain/messages.js';
import type { RealmState, Stream, Subscription, User } from '../../domain/realm-state.js';
import type { RealmRecord, StreamCreated, SubscriptionsAdded } from '../../domain/records.js';
import { apiEmail, findUserByEmail } from '../../domain/users.js';
import { canAddSubscribers, canJoinStream, canRemoveSubscribers, canSeeWithSubscribers, hasMetadataAccess, hasRealmPermission, isRealmAdmin } from '../../domain/access.js';
import { renderMarkdown } from '../../markdown/render.js';
import type { CommandReplies } from '../commands.js';
import type { CommandContext, Handler, RealmEvent } from '../decision.js';

/**
 * Subscribe and/or unsubscribe (zulip-behavior.md §3.2–3.4): `POST`, `DELETE` and `PATCH
 * /users/me/subscriptions`. Channels in `add` that do not exist are created by `actorId`.
 */
export interface UpdateSubscriptions {
  type: 'update_subscriptions';
  actorId: number;
  /** Validated `subscriptions` / `add` entries. */
  add: Array<{ name: string; color?: string; description?: string }>;
  /** Channel names to unsubscribe from. */
  remove: string[];
  /** Emails or user ids; undefined or empty = the actor. */
  principals?: Array<string | number>;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault: boolean;
  authorizationErrorsFatal: boolean;
  /** Announce new channels in the realm's new-channel announcements channel. */
  announce?: boolean;
}

const insufficientPermission = () => Errors.badRequest('Insufficient permission');

/** Resolves `principals` (emails or ids) to active users; [] = the actor. */
function resolvePrincipals(state: RealmState, actor: User, principals: ReadonlyArray<string | number> | undefined): User[] | ZulipError {
  if (principals === undefined || principals.length === 0) return [actor];
  const out = new Map<number, User>();
  for (const p of principals) {
    const user = typeof p === 'number' ? state.users.get(p) : findUserByEmail(state, p);
    if (user === undefined) return Errors.noSuchUser();
    if (!user.isActive) return Errors.badRequest('User is deactivated');
    out.set(user.id, user);
  }
  return [...out.values()];
}

/** Default color for a user: the first palette color not used yet (counting `extra`), else by recipient id. */
function nextColor(state: RealmState, userId: number, recipientId: number, extra: Set<string>): string {
  const used = new Set(extra);
  for (const sid of state.userStreams.get(userId) ?? []) {
    const sub = state.subscriptions.get(sid)?.get(userId);
    if (sub) used.add(sub.color);
  }
  return STREAM_COLORS.find((c) => !used.has(c)) ?? STREAM_COLORS[recipientId % STREAM_COLORS.length]!;
}

const ascending = (a: number, b: number) => a - b;

function activeUsers(state: RealmState): User[] {
  return [...state.users.values()].filter((u) => u.isActive);
}

/** What the add half decided: records, events and the reply parts. */
interface AddOutcome {
  records: RealmRecord[];
  events: RealmEvent[];
  subscribed: Record<string, string[]>;
  alreadySubscribed: Record<string, string[]>;
  unauthorized: string[];
  /** Notification Bot messages: new channels' first messages, `announce`, "subscribed you" DMs. */
  followUps: InternalSend[];
}

function decideAdd(state: RealmState, actor: User, users: User[], cmd: UpdateSubscriptions, ctx: CommandContext): AddOutcome | ZulipError {
  const others = users.some((u) => u.id !== actor.id);
  // 1. Names, and which channels exist.
  const wanted: Array<{ name: string; color?: string; description?: string; stream?: Stream }> = [];
  const seen = new Set<string>();
  for (const entry of cmd.add) {
    const name = checkStreamName(entry.name);
    if (!name.ok) return Errors.badRequest(name.msg);
    const key = name.name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const stream = findStreamByName(state, name.name);
    wanted.push({ ...entry, name: stream?.name ?? name.name, ...(stream && { stream }) });
  }
  // 2. Creation permissions.
  const toCreate = wanted.filter((w) => w.stream === undefined);
  if (toCreate.length > 0) {
    if (!hasRealmPermission(state, actor, cmd.inviteOnly ? 'can_create_private_channel_group' : 'can_create_public_channel_group')) return insufficientPermission();
    if (cmd.isWebPublic && !hasRealmPermission(state, actor, 'can_create_web_public_channel_group')) return insufficientPermission();
    if (cmd.isDefault && !isRealmAdmin(actor)) return insufficientPermission();
    if (cmd.isDefault && cmd.inviteOnly) return Errors.badRequest('A default channel cannot be private.');
    for (const w of toCreate) {
      const description = (w.description ?? '').replace(/\r?\n/g, ' ');
      if (codePointLength(description) > MAX_STREAM_DESCRIPTION_LENGTH) {
        return Errors.badRequest(`description is too long (limit: ${MAX_STREAM_DESCRIPTION_LENGTH} characters)`);
      }
    }
  }
  // 3. Access to existing channels.
  const unauthorized: string[] = [];
  const targets: Array<{ stream: Stream; color?: string; created: boolean }> = [];
  for (const w of wanted) {
    const stream = w.stream;
    if (stream === undefined) continue;
    if (others && !canAddSubscribers(state, actor, stream)) {
      if (hasMetadataAccess(state, actor, stream)) return insufficientPermission();
      unauthorized.push(stream.name);
      continue;
    }
    if (!others && !canJoinStream(state, actor, stream)) {
      unauthorized.push(stream.name);
      continue;
    }
    targets.push({ stream, ...(w.color !== undefined && { color: w.color }), created: false });
  }
  if (unauthorized.length > 0 && cmd.authorizationErrorsFatal) {
    return Errors.badRequest(`Unable to access channel (${unauthorized[0]}).`);
  }
  // 4. Records: new channels first, then subscriptions.
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  const now = Math.floor(ctx.now());
  toCreate.forEach((w, k) => {
    const description = (w.description ?? '').replace(/\r?\n/g, ' ');
    const record: StreamCreated = {
      type: 'stream_created',
      v: 1,
      id: state.nextIds.stream + k,
      recipientId: state.nextIds.recipient + k,
      name: w.name,
      description,
      renderedDescription: description === '' ? '' : renderMarkdown(description),
      dateCreated: now,
      creatorId: actor.id,
      inviteOnly: cmd.inviteOnly,
      isWebPublic: cmd.isWebPublic,
      historyPublicToSubscribers: cmd.inviteOnly ? (cmd.historyPublicToSubscribers ?? false) : true,
      isDefault: cmd.isDefault,
      messageRetentionDays: null,
      topicsPolicy: 'inherit',
      folderId: null,
      groups: defaultStreamGroups(state, actor.id),
    };
    records.push(record);
    targets.push({ stream: streamFromRecord(record), ...(w.color !== undefined && { color: w.color }), created: true });
  });
  // Sort targets back into request order (created ones were appended).
  const order = new Map(wanted.map((w, i) => [w.name, i]));
  targets.sort((a, b) => order.get(a.stream.name)! - order.get(b.stream.name)!);

  const subscribed: Record<string, string[]> = {};
  const alreadySubscribed: Record<string, string[]> = {};
  const colorsUsed = new Map<number, Set<string>>();
  const newSubs = new Map<number, Map<number, Subscription>>(); // stream id → user id → sub
  for (const t of targets) {
    const existing = state.subscriptions.get(t.stream.id);
    const added: SubscriptionsAdded = { type: 'subscriptions_added', v: 1, streamId: t.stream.id, subscriptions: [] };
    const fresh = new Map<number, Subscription>();
    for (const u of users) {
      // Keyed by user id as a string at FL 417 (Zulip's python_examples.py `add_subscriptions` asserts `str(user_id)`).
      const key = String(u.id);
      if (existing?.has(u.id)) {
        (alreadySubscribed[key] ??= []).push(t.stream.name);
        continue;
      }
      const extra = colorsUsed.get(u.id) ?? new Set<string>();
      colorsUsed.set(u.id, extra);
      const color = t.color ?? nextColor(state, u.id, t.stream.recipientId, extra);
      extra.add(color);
      added.subscriptions.push({ userId: u.id, color });
      fresh.set(u.id, newSubscription(color));
      (subscribed[key] ??= []).push(t.stream.name);
    }
    if (added.subscriptions.length > 0) records.push(added);
    newSubs.set(t.stream.id, fresh);
  }

  // 5. Events.
  const everyone = activeUsers(state);
  const addsPerUser = new Map<number, SubscriptionObject[]>();
  for (const t of targets) {
    const stream = t.stream;
    const fresh = newSubs.get(stream.id)!;
    const before = new Set(state.subscriptions.get(stream.id)?.keys() ?? []);
    const after = new Set([...before, ...fresh.keys()]);
    const subscribers = [...after].sort(ascending);
    if (t.created) {
      const wire = { ...streamToWire(state, stream), subscriber_count: 0 };
      const to = everyone.filter((u) => canSeeWithSubscribers(state, u, stream, after)).map((u) => u.id);
      if (to.length > 0) events.push({ userIds: to, payload: { type: 'stream', op: 'create', streams: [wire] } });
    } else {
      const gaining = [...fresh.keys()].filter((id) => {
        const u = state.users.get(id)!;
        return !canSeeWithSubscribers(state, u, stream, before);
      });
      if (gaining.length > 0) {
        events.push({ userIds: gaining, payload: { type: 'stream', op: 'create', streams: [streamToWire(state, stream)] } });
      }
    }
    for (const [userId, sub] of fresh) {
      const wire = { ...subscriptionToWire(state, stream, sub, false), subscriber_count: after.size, subscribers };
      const list = addsPerUser.get(userId) ?? [];
      list.push(wire);
      addsPerUser.set(userId, list);
    }
  }
  for (const [userId, subscriptions] of addsPerUser) {
    events.push({ userIds: [userId], payload: { type: 'subscription', op: 'add', subscriptions } });
  }
  for (const t of targets) {
    const fresh = newSubs.get(t.stream.id)!;
    if (fresh.size === 0) continue;
    const after = new Set([...(state.subscriptions.get(t.stream.id)?.keys() ?? []), ...fresh.keys()]);
    const to = everyone.filter((u) => !fresh.has(u.id) && canSeeWithSubscribers(state, u, t.stream, after)).map((u) => u.id);
    if (to.length > 0) {
      events.push({
        userIds: to,
        payload: { type: 'subscription', op: 'peer_add', stream_ids: [t.stream.id], user_ids: [...fresh.keys()].sort(ascending) },
      });
    }
  }
  const created = targets.filter((t) => t.created).map((t) => t.stream);
  const namesByUser = new Map<number, string[]>();
  for (const t of targets) {
    if (t.created) continue;
    for (const userId of newSubs.get(t.stream.id)!.keys()) namesByUser.set(userId, [...(namesByUser.get(userId) ?? []), t.stream.name]);
  }
  const followUps = [
    ...created.map((stream) => channelCreatedNotice(actor, stream)),
    ...(cmd.announce ? newChannelsAnnouncement(state, actor, created.map((s) => s.name)) : []),
    ...subscribedYouNotices(state, actor, namesByUser),
  ];
  return { records, events, subscribed, alreadySubscribed, unauthorized, followUps };
}

interface RemoveOutcome {
  records: RealmRecord[];
  events: RealmEvent[];
  removed: string[];
  notRemoved: string[];
}

function decideRemove(state: RealmState, actor: User, users: User[], names: readonly string[]): RemoveOutcome | ZulipError {
  const streams: Stream[] = [];
  const missing: string[] = [];
  for (const raw of names) {
    const name = checkStreamName(raw);
    if (!name.ok) return Errors.badRequest(name.msg);
    const stream = findStreamByName(state, name.name);
    if (stream === undefined || !hasMetadataAccess(state, actor, stream)) missing.push(name.name);
    else if (!streams.includes(stream)) streams.push(stream);
  }
  if (missing.length > 0) return Errors.badRequest(`Channel(s) (${missing.join(', ')}) do not exist`);
  const removingOthers = users.some((u) => u.id !== actor.id && !(u.isBot && u.botOwnerId === actor.id));
  if (removingOthers) {
    for (const stream of streams) if (!canRemoveSubscribers(state, actor, stream)) return insufficientPermission();
  }
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  const removed: string[] = [];
  const notRemoved: string[] = [];
  const removesPerUser = new Map<number, Array<{ name: string; stream_id: number }>>();
  const everyone = activeUsers(state);
  const deletes: RealmEvent[] = [];
  const peers: RealmEvent[] = [];
  for (const stream of streams) {
    const subs = state.subscriptions.get(stream.id)!;
    const gone: number[] = [];
    for (const u of users) {
      if (subs.has(u.id)) {
        gone.push(u.id);
        removed.push(stream.name);
        const list = removesPerUser.get(u.id) ?? [];
        list.push({ name: stream.name, stream_id: stream.id });
        removesPerUser.set(u.id, list);
      } else {
        notRemoved.push(stream.name);
      }
    }
    if (gone.length === 0) continue;
    gone.sort(ascending);
    records.push({ type: 'subscriptions_removed', v: 1, streamId: stream.id, userIds: gone });
    const after = new Set([...subs.keys()].filter((id) => !gone.includes(id)));
    const goneSet = new Set(gone);
    const to = everyone.filter((u) => !goneSet.has(u.id) && canSeeWithSubscribers(state, u, stream, after)).map((u) => u.id);
    if (to.length > 0) {
      peers.push({ userIds: to, payload: { type: 'subscription', op: 'peer_remove', stream_ids: [stream.id], user_ids: gone } });
    }
    const losing = gone.filter((id) => !canSeeWithSubscribers(state, state.users.get(id)!, stream, after));
    if (losing.length > 0) {
      const wire = { ...streamToWire(state, stream), subscriber_count: after.size };
      deletes.push({ userIds: losing, payload: { type: 'stream', op: 'delete', streams: [wire] } });
    }
  }
  for (const [userId, subscriptions] of removesPerUser) {
    events.push({ userIds: [userId], payload: { type: 'subscription', op: 'remove', subscriptions } });
  }
  events.push(...peers, ...deletes);
  return { records, events, removed, notRemoved };
}

/**
 * `update_subscriptions`: the add half (`POST /users/me/subscriptions`, PATCH `add`) then the
 * remove half (`DELETE`, PATCH `delete`), in one decision. Reply keys as on the wire:
 * `subscribed`/`already_subscribed` (keyed by user id as a string; `unauthorized` when
 * `authorization_errors_fatal` is false) when `add` is non-empty, `removed`/`not_removed` when
 * `remove` is non-empty.
 */
export const updateSubscriptions: Handler<UpdateSubscriptions, CommandReplies['update_subscriptions']> = (state, cmd, ctx) => {
  const actor = state.users.get(cmd.actorId);
  if (actor === undefined || !actor.isActive) return fail(Errors.noSuchUser());
  const users = resolvePrincipals(state, actor, cmd.principals);
  if (!Array.isArray(users)) return fail(users);
  const reply: Record<string, unknown> = {};
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  const followUps: InternalSend[] = [];
  if (cmd.add.length > 0) {
    const add = decideAdd(state, actor, users, cmd, ctx);
    if (!('records' in add)) return fail(add);
    records.push(...add.records);
    events.push(...add.events);
    reply.subscribed = add.subscribed;
    reply.already_subscribed = add.alreadySubscribed;
    if (!cmd.authorizationErrorsFatal) reply.unauthorized = add.unauthorized;
    followUps.push(...add.followUps);
  }
  if (cmd.remove.length > 0) {
    // Removal decides against the state before the add half; a name in both lists is not supported.
    const remove = decideRemove(state, actor, users, cmd.remove);
    if (!('records' in remove)) return fail(remove);
    records.push(...remove.records);
    events.push(...remove.events);
    reply.removed = remove.removed;
    reply.not_removed = remove.notRemoved;
  }
  return ok({ records, events, reply, followUps });
};

/**
 * Subscriptions of a new human user to the realm's default channels (`stream.isDefault`, not
 * archived; https://zulip.com/api/create-user, Zulip's `process_new_human_user`): one `subscriptions_added`
 * record per channel, colors in palette order by recipient id, and `peer_add` events to the users
 * who can see each channel. The user's `user_created` record must come first.
 */
export function defaultStreamSubscriptions(state: RealmState, user: { id: number; isBot: boolean }): { records: RealmRecord[]; events: RealmEvent[] } {
  const records: RealmRecord[] = [];
  const events: RealmEvent[] = [];
  if (user.isBot) return { records, events };
  const defaults = [...state.streams.values()].filter((s) => s.isDefault && !s.isArchived).sort((a, b) => a.recipientId - b.recipientId);
  const everyone = activeUsers(state);
  defaults.forEach((stream, i) => {
    const color = STREAM_COLORS[i] ?? STREAM_COLORS[stream.recipientId % STREAM_COLORS.length]!;
    records.push({ type: 'subscriptions_added', v: 1, streamId: stream.id, subscriptions: [{ userId: user.id, color }] });
    const after = new Set([...(state.subscriptions.get(stream.id)?.keys() ?? []), user.id]);
    const to = everyone.filter((u) => u.id !== user.id && canSeeWithSubscribers(state, u, stream, after)).map((u) => u.id);
    if (to.length > 0) {
      events.push({ userIds: to, payload: { type: 'subscription', op: 'peer_add', stream_ids: [stream.id], user_ids: [user.id] } });
    }
  });
  return { records, events };
}
