/**
 * Who may move messages (Zulip's zerver/lib/streams.py `can_edit_topic`,
 * `can_move_messages_within_channel`, `can_move_messages_out_of_channel`, `can_resolve_topics`):
 * realm-wide group settings, or the original / target channel's settings and administrators.
 * The caller has already checked access to the message and the target channel.
 */
import { hasGroupPermission } from '../groups.js';
import { Role, type RealmState, type Stream, type User } from '../realm-state.js';
import { canAdministerChannel } from './streams.js';

/** Whether the realm-level group setting `name` allows `user`. */
const realmGroup = (state: RealmState, user: User, name: string): boolean => {
  const value = state.settings.groups[name];
  return value !== undefined && hasGroupPermission(state, user.id, value);
};

/** Zulip's `can_move_messages_within_channel`. */
function canMoveWithinChannel(state: RealmState, user: User, stream: Stream): boolean {
  return canAdministerChannel(state, user, stream) || hasGroupPermission(state, user.id, stream.groups.can_move_messages_within_channel_group);
}

/** Zulip's `can_edit_topic`: realm `can_move_messages_between_topics_group` or either channel's setting. */
export function canEditTopic(state: RealmState, user: User, orig: Stream, target: Stream): boolean {
  if (realmGroup(state, user, 'can_move_messages_between_topics_group')) return true;
  if (canMoveWithinChannel(state, user, orig)) return true;
  return orig.id !== target.id && canMoveWithinChannel(state, user, target);
}

/** Zulip's `can_resolve_topics`: realm `can_resolve_topics_group` or either channel's setting. */
export function canResolveTopics(state: RealmState, user: User, orig: Stream, target: Stream): boolean {
  if (realmGroup(state, user, 'can_resolve_topics_group')) return true;
  if (hasGroupPermission(state, user.id, orig.groups.can_resolve_topics_group)) return true;
  return orig.id !== target.id && hasGroupPermission(state, user.id, target.groups.can_resolve_topics_group);
}

/** Zulip's `can_move_messages_out_of_channel`. */
export function canMoveOutOfChannel(state: RealmState, user: User, stream: Stream): boolean {
  if (user.role <= Role.admin) return true;
  if (realmGroup(state, user, 'can_move_messages_between_channels_group')) return true;
  if (canAdministerChannel(state, user, stream)) return true;
  return hasGroupPermission(state, user.id, stream.groups.can_move_messages_out_of_channel_group);
}
