/**
 * The realm as the sender's Markdown sees it (`ZulipRenderContext`, markdown/context.ts): closures
 * over the realm state answering the lookups mention, channel-link and emoji syntax makes. Used by
 * in-thread renders (`message-render.ts`) and, turned into plain data, by renders on a worker
 * thread (`render-offload.ts`).
 *
 * Zulip's rules: mentions of users the sender cannot access render as unknown names
 * (zerver/lib/users.py `get_inaccessible_user_ids`); channel links only to channels whose content
 * the sender can access (zerver/lib/markdown/__init__.py `StreamPattern`, `user_has_content_access`).
 */
import { EXTERNAL_CONTENT_PREFIX } from '../domain/camo.js';
import { activeRealmEmojiByName, emojiSourceUrl } from '../domain/realm-emoji.js';
import type { RealmState, Stream, User } from '../domain/realm-state.js';
import { canAccessAllUsers, canAccessUser, hasContentAccess } from '../domain/access.js';
import { topicMessageIds } from '../domain/recipient-index.js';
import { personalSetting } from '../domain/user-settings.js';
import { usersByLowerName } from '../domain/user-name-index.js';
import { uploadImagePreview } from '../domain/upload-thumbnails.js';
import { emptyFindings, type LinkableStream, type MentionableUser, type ZulipRenderContext } from '../markdown/context.js';

const NO_USERS: readonly MentionableUser[] = [];

function mentionable(user: User): MentionableUser {
  return { id: user.id, fullName: user.fullName, isActive: user.isActive };
}

/**
 * The realm as the sender's Markdown sees it (closures over `state`; nothing is copied), at
 * `nowSeconds` (UNIX seconds, the command's clock).
 */
export function renderContext(state: RealmState, senderId: number, nowSeconds: number): ZulipRenderContext {
  const sender = state.users.get(senderId);
  const linkable = (stream: Stream | undefined): LinkableStream | undefined =>
    // Zulip links only channels the sender has content access to (`user_has_content_access`).
    stream !== undefined && sender !== undefined && hasContentAccess(state, sender, stream)
      ? { id: stream.id, name: stream.name }
      : undefined;
  // Zulip's `get_inaccessible_user_ids`: a guest outside `can_access_all_users_group` cannot
  // mention users they cannot access; such mentions stay plain text, as for unknown users.
  const restricted = sender !== undefined && !canAccessAllUsers(state, sender) ? sender : undefined;
  const access = new Map<number, boolean>();
  const accessible = (user: User): boolean => {
    if (restricted === undefined) return true;
    let yes = access.get(user.id);
    if (yes === undefined) access.set(user.id, (yes = canAccessUser(state, restricted, user.id)));
    return yes;
  };
  return {
    userById(id) {
      const user = state.users.get(id);
      return user === undefined || !accessible(user) ? undefined : mentionable(user);
    },
    usersByFullName(name) {
      const users = usersByLowerName(state, name).filter(accessible);
      return users.length === 0 ? NO_USERS : users.map(mentionable);
    },
    groupByName(name) {
      for (const group of state.groups.values()) {
        if (group.name === name && !group.isSystemGroup) {
          return { id: group.id, name: group.name, deactivated: group.deactivated };
        }
      }
      return undefined;
    },
    streamByName(name) {
      const id = state.streamsByName.get(name.toLowerCase());
      const stream = id === undefined ? undefined : state.streams.get(id);
      return stream?.name === name ? linkable(stream) : undefined;
    },
    streamById(id) {
      return linkable(state.streams.get(id));
    },
    topicLatestMessageId(streamId, topic) {
      const stream = state.streams.get(streamId);
      if (stream === undefined) return undefined;
      const ids = topicMessageIds(state, stream.recipientId, topic);
      for (let i = ids.length - 1; i >= 0; i--) {
        const id = ids[i]!;
        if (stream.historyPublicToSubscribers || state.messages.userFlags(senderId, id) !== undefined) return id;
      }
      return undefined;
    },
    linkifiers: state.linkifiers?.items ?? [],
    realmEmoji(name) {
      const emoji = activeRealmEmojiByName(state, name);
      if (emoji === undefined) return undefined;
      return { id: String(emoji.id), name: emoji.name, sourceUrl: emojiSourceUrl(state.id, emoji.fileName), deactivated: false };
    },
    ...(state.camoKey !== undefined && { camo: { uri: EXTERNAL_CONTENT_PREFIX, key: state.camoKey } }),
    uploadPreview: (pathId) => uploadImagePreview(state, pathId),
    translateEmoticons: sender !== undefined && personalSetting(sender, 'translate_emoticons') === true,
    nowSeconds,
    out: emptyFindings(),
  };
}
