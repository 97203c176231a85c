/**
 * Channel access: the one place that answers "may this user see / read / post to / administer
 * this channel" (Zulip's zerver/lib/streams.py: `user_has_metadata_access`,
 * `user_has_content_access`, `can_access_stream_history`, `access_stream_by_id`,
 * `access_stream_by_name`, `access_stream_for_send_message`,
 * `check_stream_access_for_delete_or_update_requiring_metadata_access`).
 *
 * Two levels of access, as Zulip:
 * - **metadata** (the channel may be named, listed, looked up): web-public channels; subscribers;
 *   for non-guests also public channels, realm administrators, and members of the channel's
 *   `can_administer_channel_group`, `can_add_subscribers_group` or `can_subscribe_group`;
 * - **content** (its messages may be read, it may be muted, drafted to, marked read): web-public
 *   channels; subscribers; for non-guests also public channels and members of
 *   `can_add_subscribers_group` or `can_subscribe_group` (they could subscribe themselves).
 *   Realm administrators do NOT get content access to private channels they are not in.
 *
 * The `access*` functions return the channel (and whether the user is subscribed) or the single
 * "unknown or not allowed" error of the lookup's kind, so a caller cannot tell the two apart by
 * accident (no existence oracle); a deactivated actor gets that error too. Guests are never members of the permission groups above for
 * access purposes: those settings have `allow_everyone_group=False` in Zulip.
 */
import { Errors, fail, ok, type Result, type ZulipError } from '../../errors.js';
import { hasGroupPermission } from '../groups.js';
import { Role, type GroupSettingValue, type RealmState, type Stream, type User } from '../realm-state.js';
import { findStreamByName } from '../streams.js';

/** A channel the user may access, and whether they are subscribed (Zulip's `(stream, sub)`). */
export interface StreamAccess {
  stream: Stream;
  subscribed: boolean;
}

/**
 * Options of {@link accessStreamById} / {@link accessStreamByName} (Zulip's keyword arguments of
 * the same names). Defaults: an archived channel is refused, and content access is required.
 */
export interface StreamAccessOptions {
  /** Refuse archived channels with the lookup's error (default true). */
  requireActive?: boolean;
  /** true: content access; false: metadata access is enough (default true). */
  requireContentAccess?: boolean;
}

/** Whether the user is currently subscribed to the channel. */
export function isSubscribed(state: RealmState, userId: number, streamId: number): boolean {
  return state.subscriptions.get(streamId)?.has(userId) ?? false;
}

/** Group membership for a channel permission with `allow_everyone_group=False`: never guests. */
function inNonGuestGroup(state: RealmState, user: User, value: GroupSettingValue): boolean {
  return user.role !== Role.guest && hasGroupPermission(state, user.id, value);
}

/**
 * Zulip's `user_has_content_access`. `subscribed` overrides the subscription lookup (for a
 * channel whose subscribers are being decided in the same command).
 */
export function hasContentAccess(state: RealmState, user: User, stream: Stream, subscribed = isSubscribed(state, user.id, stream.id)): boolean {
  if (stream.isWebPublic || subscribed) return true;
  if (user.role === Role.guest) return false;
  if (!stream.inviteOnly) return true;
  return inNonGuestGroup(state, user, stream.groups.can_subscribe_group) || inNonGuestGroup(state, user, stream.groups.can_add_subscribers_group);
}

/**
 * Zulip's `user_has_metadata_access`: content access, or (non-guests) realm administrator or
 * member of the channel's `can_administer_channel_group`. `subscribed` as in {@link hasContentAccess}.
 */
export function hasMetadataAccess(state: RealmState, user: User, stream: Stream, subscribed = isSubscribed(state, user.id, stream.id)): boolean {
  if (hasContentAccess(state, user, stream, subscribed)) return true;
  if (user.role === Role.guest) return false;
  return user.role <= Role.admin || inNonGuestGroup(state, user, stream.groups.can_administer_channel_group);
}

/**
 * Zulip's `can_access_stream_history`: whether the user may read messages sent before they
 * joined (web-public; public with shared history for non-guests; shared history with content
 * access). Protected-history channels never qualify: only received messages count there.
 */
export function canAccessStreamHistory(state: RealmState, user: User, stream: Stream): boolean {
  if (stream.isWebPublic) return true;
  if (!stream.inviteOnly && stream.historyPublicToSubscribers && user.role !== Role.guest) return true;
  return stream.historyPublicToSubscribers && !stream.isArchived && hasContentAccess(state, user, stream);
}

/**
 * Zulip's `can_administer_accessible_channel` (plus its realm-administrator shortcut): realm
 * administrators, and non-guest members of `can_administer_channel_group`. The caller must have
 * checked access first ({@link accessStreamForAdminister} does both).
 */
export function canAdministerChannel(state: RealmState, user: User, stream: Stream): boolean {
  return user.role <= Role.admin || inNonGuestGroup(state, user, stream.groups.can_administer_channel_group);
}

/**
 * Zulip's `check_stream_access_based_on_can_send_message_group`: the sender (or a bot's owner)
 * is in the channel's `can_send_message_group`; the realm's system bots always are.
 */
export function canPostInChannel(state: RealmState, sender: User, stream: Stream): boolean {
  if (sender.systemBot !== undefined) return true;
  const group = stream.groups.can_send_message_group;
  if (hasGroupPermission(state, sender.id, group)) return true;
  return sender.isBot && sender.botOwnerId !== null && hasGroupPermission(state, sender.botOwnerId, group);
}

/** Zulip's `access_stream_common`: the access check shared by the by-id and by-name lookups. */
function accessStream(state: RealmState, user: User, stream: Stream | undefined, error: ZulipError, opts: StreamAccessOptions): Result<StreamAccess> {
  if (stream === undefined || !user.isActive) return fail(error);
  if ((opts.requireActive ?? true) && stream.isArchived) return fail(error);
  const subscribed = isSubscribed(state, user.id, stream.id);
  const allowed = (opts.requireContentAccess ?? true) ? hasContentAccess(state, user, stream, subscribed) : hasMetadataAccess(state, user, stream, subscribed);
  return allowed ? ok({ stream, subscribed }) : fail(error);
}

/** Zulip's `access_stream_by_id`: the channel or `Invalid channel ID` (unknown and inaccessible alike). */
export function accessStreamById(state: RealmState, user: User, streamId: number, opts: StreamAccessOptions = {}): Result<StreamAccess> {
  return accessStream(state, user, state.streams.get(streamId), Errors.invalidStreamId(), opts);
}

/** Zulip's `access_stream_by_name` (case-insensitive): the channel or `Invalid channel name '<name>'`. */
export function accessStreamByName(state: RealmState, user: User, name: string, opts: StreamAccessOptions = {}): Result<StreamAccess> {
  return accessStream(state, user, findStreamByName(state, name), Errors.invalidStreamName(name), opts);
}

/**
 * Zulip's `access_stream_for_send_message` for an existing, active channel of the realm, or the
 * error: `can_send_message_group` first ("You do not have permission to post in this channel."),
 * then access to post: web-public; public for non-guests; subscribed; a bot whose owner is
 * subscribed; with shared history, non-guest members of `can_subscribe_group` /
 * `can_add_subscribers_group`; the realm's system bots always. Else
 * `Not authorized to send to channel '<name>'`. Returns null when the sender may post.
 */
export function accessStreamForSend(state: RealmState, sender: User, stream: Stream): ZulipError | null {
  if (!sender.isActive) return Errors.notAuthorizedToSend(stream.name);
  if (!canPostInChannel(state, sender, stream)) return Errors.cannotSendToChannel();
  if (stream.isArchived) return Errors.notAuthorizedToSend(stream.name);
  if (sender.systemBot !== undefined || stream.isWebPublic) return null;
  if (!stream.inviteOnly && sender.role !== Role.guest) return null;
  if (isSubscribed(state, sender.id, stream.id)) return null;
  if (sender.isBot && sender.botOwnerId !== null && isSubscribed(state, sender.botOwnerId, stream.id)) return null;
  if (stream.historyPublicToSubscribers && hasContentAccess(state, sender, stream)) return null;
  return Errors.notAuthorizedToSend(stream.name);
}

/**
 * Zulip's `access_stream_for_delete_or_update_requiring_metadata_access` (PATCH and DELETE
 * `/streams/{id}`): unknown channels and channels the user may not know about → `Invalid channel
 * ID`; a user with content access who may not administer it → `You do not have permission to
 * administer this channel.`; administrators and `can_administer_channel_group` members pass
 * (archived channels included: unarchiving goes through here).
 */
export function accessStreamForAdminister(state: RealmState, user: User, streamId: number): Result<StreamAccess> {
  const stream = state.streams.get(streamId);
  if (stream === undefined || !user.isActive) return fail(Errors.invalidStreamId());
  const subscribed = isSubscribed(state, user.id, stream.id);
  if (canAdministerChannel(state, user, stream)) return ok({ stream, subscribed });
  if (hasContentAccess(state, user, stream, subscribed)) return fail(Errors.cannotAdministerChannel());
  return fail(Errors.invalidStreamId());
}
