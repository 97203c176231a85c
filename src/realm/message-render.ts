/**
 * Rendering a message's content in its realm (issue 7): Zulip-flavored Markdown with the realm's
 * users, groups, channels, emoji and linkifiers, plus what delivery needs from the rendering —
 * mention flags per recipient and the wildcard mentions the send permission checks.
 * Used by sending (`handlers/messages.ts`), content edits and `POST /messages/render`, so all
 * render identically.
 *
 * Zulip's rules (zerver/actions/message_send.py `build_message_send_dict`,
 * `create_user_messages`; zerver/lib/mention.py):
 * - `mentioned`: users mentioned with `@**…**`, and the active members (through subgroups) of
 *   groups mentioned with `@*…*` — Zulip sets `mentioned`, not `group_mentioned`, for those;
 * - `stream_wildcard_mentioned`: every recipient, for `@**all**`/`@**everyone**`/`@**channel**`/`@**stream**`;
 * - `topic_wildcard_mentioned`: recipients who participate in the topic (sent or reacted to a
 *   message in it, the sender included), for `@**topic**` in a channel message;
 * - silent mentions (`@_**…**`, quoted mentions, deactivated users/groups) flag nobody.
 * - a guest outside `can_access_all_users_group` cannot mention users they cannot access
 *   (`get_inaccessible_user_ids`, see domain/access/users.ts): such mentions render as unknown names.
 * Links into the realm (`RealmState.url`, the configured organization URL — never the Host the
 * sender used, so stored HTML is the same whoever sent it) render relative
 * (zerver/lib/markdown/__init__.py `rewrite_local_links_to_relative`), internal sends included.
 * Only recipients (users who get a UserMessage row) appear in `userFlags`.
 *
 * Cost on the send path: the context is a handful of closures over the state's maps; lookups run
 * only for mention/link syntax actually present (names via a cached index, see user-name-index.ts).
 */
import { groupPermissionValues } from '../domain/group-permissions.js';
import type { RealmState, Stream } from '../domain/realm-state.js';
import { Flag } from '../domain/message-index.js';
import { hasGroupPermission, isUserInGroup } from '../domain/groups.js';
import { topicMessageIds } from '../domain/recipient-index.js';
import type { RenderFindings } from '../markdown/context.js';
import { zulipRenderer } from '../markdown/zulip-renderer.js';
import { renderPlainText } from '../markdown/plain-text.js';
import { MarkdownRenderingError, MAX_RENDERED_LENGTH, messageRenderWork } from '../markdown/render-budget.js';
import { renderContext } from './render-context.js';
import { verifyPrerendered, type PrerenderedContent } from './render-offload.js';
import { Errors, ZulipError } from '../errors.js';
import { renderOffloads } from '../metrics.js';

/** Where the message goes; mentions and topic wildcards depend on it. */
export interface RenderTarget {
  senderId: number;
  /** UNIX seconds: the command's clock (`ctx.now()`), "now" for `<time:…>` (see markdown/context.ts). */
  nowSeconds: number;
  /** Channel messages: the channel id and topic; absent for direct messages. */
  streamId?: number;
  topic?: string;
  /** Direct messages: every member of the conversation (sender included). */
  directUserIds?: readonly number[];
}

/** A rendered message. */
export interface RenderedMessage {
  /** HTML for `rendered_content` / `content`. */
  rendered: string;
  /** Extra UserMessage flag bits (`Flag.mentioned`, …) by recipient user id; absent users get none. */
  userFlags: Record<number, number>;
  /** `@**all**`/`@**everyone**`/`@**channel**` (and the legacy `@**stream**`) appeared unsilenced. */
  streamWildcard: boolean;
  /** `@**topic**` appeared unsilenced. */
  topicWildcard: boolean;
  /**
   * Channel messages with a topic wildcard: the number of topic participants (users who sent or
   * reacted to a message in the topic, the sender included) — Zulip's `topic_participant_user_ids`.
   */
  topicParticipantCount?: number;
  /** User groups mentioned with `@*group*` (not silent). */
  mentionedGroupIds: readonly number[];
}

/** Zulip's `Realm.WILDCARD_MENTION_THRESHOLD`: up to this many users, anyone may use wildcards. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/**
 * Renders `content` (already normalized by `normalizeContent`, or bounded by the caller) for
 * `target` in `state`. Returns `Errors.unableToRenderMessage()` where Zulip's `markdown_convert`
 * raises `MarkdownRenderingError`: past the render's work budget (parley's stand-in for Zulip's
 * 5 s timeout, see markdown/render-budget.ts) or when the HTML exceeds `MAX_MESSAGE_LENGTH * 100`.
 * `prerendered` (a worker's render made before the command, render-offload.ts) is used when it is
 * verified to be exactly this render against `state`; otherwise the content renders here.
 * Content that provably renders as one plain paragraph (markdown/plain-text.ts) skips the
 * renderer and its context: same HTML, no mentions, nothing else to compute.
 */
export function renderMessageContent(
  state: RealmState,
  content: string,
  target: RenderTarget,
  prerendered?: PrerenderedContent,
): RenderedMessage | ZulipError {
  const plain = renderPlainText(content, state.linkifiers?.items ?? []);
  if (plain !== undefined && plain.length <= MAX_RENDERED_LENGTH) {
    return { rendered: plain, userFlags: {}, streamWildcard: false, topicWildcard: false, mentionedGroupIds: [] };
  }
  const verified = prerendered && verifyPrerendered(state, prerendered, content, target.senderId, target.nowSeconds);
  if (prerendered !== undefined) renderOffloads.inc({ outcome: verified ? 'worker' : 'stale' });
  let rendered: string;
  let found: RenderFindings;
  if (verified) {
    if (verified.kind === 'over_budget') return Errors.unableToRenderMessage();
    ({ html: rendered, findings: found } = verified);
  } else {
    const zulip = renderContext(state, target.senderId, target.nowSeconds);
    try {
      const work = messageRenderWork(content.length);
      rendered = zulipRenderer.render(content, state.url !== '' ? { zulip, realmUrl: state.url, work } : { zulip, work });
    } catch (err) {
      if (err instanceof MarkdownRenderingError) return Errors.unableToRenderMessage();
      throw err;
    }
    found = zulip.out;
  }
  if (rendered.length > MAX_RENDERED_LENGTH) return Errors.unableToRenderMessage();
  const result: RenderedMessage = {
    rendered,
    userFlags: {},
    streamWildcard: found.streamWildcard,
    topicWildcard: found.topicWildcard,
    mentionedGroupIds: [...found.mentionedGroupIds],
  };
  const anyMention =
    found.streamWildcard || found.topicWildcard || found.mentionedUserIds.size > 0 || found.mentionedGroupIds.size > 0;
  if (!anyMention) return result;

  const stream = target.streamId !== undefined ? state.streams.get(target.streamId) : undefined;
  let participants: Set<number> | undefined;
  if (found.topicWildcard && stream !== undefined) {
    participants = topicParticipants(state, stream, target.topic ?? '', target.senderId);
    result.topicParticipantCount = participants.size;
  }
  const mentioned = mentionedUserIds(state, found);
  for (const userId of recipientsOf(state, target, stream)) {
    let bits = 0;
    if (mentioned.has(userId)) bits |= Flag.mentioned;
    if (found.streamWildcard) bits |= Flag.stream_wildcard_mentioned;
    if (participants?.has(userId)) bits |= Flag.topic_wildcard_mentioned;
    if (bits !== 0) result.userFlags[userId] = bits;
  }
  return result;
}

/**
 * Zulip's wildcard permission check on sending (zerver/lib/message.py
 * `stream_wildcard_mention_allowed`, `topic_wildcard_mention_allowed`): with more than
 * {@link WILDCARD_MENTION_THRESHOLD} active subscribers (channel wildcard) or topic participants
 * (topic wildcard), only members of the realm's `can_mention_many_users_group` may use them.
 * Returns the error (`STREAM_WILDCARD_MENTION_NOT_ALLOWED` / `TOPIC_WILDCARD_MENTION_NOT_ALLOWED`) or null.
 */
export function checkWildcardMentions(
  state: RealmState,
  senderId: number,
  stream: Stream,
  rendering: RenderedMessage,
): ZulipError | null {
  if (!rendering.streamWildcard && !rendering.topicWildcard) return null;
  const allowed = () => {
    const group = state.settings.groups['can_mention_many_users_group'];
    return group !== undefined && hasGroupPermission(state, senderId, group);
  };
  if (rendering.streamWildcard && activeSubscriberCount(state, stream) > WILDCARD_MENTION_THRESHOLD && !allowed()) {
    return Errors.streamWildcardMentionNotAllowed();
  }
  if (
    rendering.topicWildcard &&
    (rendering.topicParticipantCount ?? 0) > WILDCARD_MENTION_THRESHOLD &&
    !allowed()
  ) {
    return Errors.topicWildcardMentionNotAllowed();
  }
  return null;
}

/**
 * Zulip's `check_user_group_mention_allowed` (https://zulip.com/api/send-message item 12): the sender must be
 * in each mentioned group's `can_mention_group` (default role:everyone for user groups). Silent
 * mentions are not checked. Returns the error for the first group refused, or null.
 */
export function checkGroupMentions(state: RealmState, senderId: number, rendering: RenderedMessage): ZulipError | null {
  for (const groupId of rendering.mentionedGroupIds) {
    const group = state.groups.get(groupId);
    if (group === undefined) continue;
    const value = groupPermissionValues(state, group).can_mention_group!;
    if (hasGroupPermission(state, senderId, value)) continue;
    const named = typeof value === 'number' ? state.groups.get(value) : undefined;
    return Errors.badRequest(
      named === undefined
        ? `You are not allowed to mention user group '${group.name}'.`
        : `You are not allowed to mention user group '${group.name}'. You must be a member of '${named.name}' to mention this group.`,
    );
  }
  return null;
}

/** Zulip's `num_subscribers_for_stream_id`: subscriptions of active users. */
function activeSubscriberCount(state: RealmState, stream: Stream): number {
  let n = 0;
  for (const userId of state.subscriptions.get(stream.id)?.keys() ?? []) if (state.users.get(userId)?.isActive) n++;
  return n;
}

/** Users who will get a UserMessage row: active subscribers (channel) or members (direct), and the sender. */
function recipientsOf(state: RealmState, target: RenderTarget, stream: Stream | undefined): Set<number> {
  const out = new Set<number>([target.senderId]);
  const ids: Iterable<number> =
    stream !== undefined ? (state.subscriptions.get(stream.id)?.keys() ?? []) : (target.directUserIds ?? []);
  for (const id of ids) if (state.users.get(id)?.isActive) out.add(id);
  return out;
}

/** Mentioned users plus the active members (through subgroups) of mentioned groups. */
function mentionedUserIds(state: RealmState, found: RenderFindings): Set<number> {
  const out = new Set(found.mentionedUserIds);
  const seen = new Set<number>();
  const addMembers = (groupId: number): void => {
    if (seen.has(groupId)) return;
    seen.add(groupId);
    const group = state.groups.get(groupId);
    if (group === undefined) return;
    if (group.isSystemGroup) {
      for (const user of state.users.values()) if (isUserInGroup(state, user.id, groupId)) out.add(user.id);
      return;
    }
    for (const id of group.directMembers) if (state.users.get(id)?.isActive) out.add(id);
    for (const sub of group.directSubgroups) addMembers(sub);
  };
  for (const groupId of found.mentionedGroupIds) addMembers(groupId);
  return out;
}

/**
 * Zulip's `participants_for_topic` plus the sender: users who sent or reacted to a message in
 * the channel's topic (topic compared case-insensitively).
 */
export function topicParticipants(state: RealmState, stream: Stream, topic: string, senderId: number): Set<number> {
  const out = new Set<number>([senderId]);
  const m = state.messages;
  const reactions = state.reactions?.byMessage;
  for (const id of topicMessageIds(state, stream.recipientId, topic)) {
    out.add(m.sender.get(id));
    const list = reactions?.get(id);
    if (list !== undefined) for (let j = 0; j < list.length; j += 2) out.add(list[j]!);
  }
  return out;
}
