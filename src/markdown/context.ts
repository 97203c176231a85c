/**
 * The realm as Zulip-specific Markdown syntax sees it, and what rendering reports back. Built per
 * message by `domain/message-render.ts` from the realm state (cheap: lookups are closures over
 * the state's maps) and handed to the renderer as `RenderOptions.zulip`; plugins read it from the
 * render env as `env.zulip` (absent for plain renders such as tests of basic Markdown, where
 * Zulip-specific syntax stays literal text).
 */
import type { Linkifier } from '../domain/linkifiers.js';

/** A user a mention may name. */
export interface MentionableUser {
  id: number;
  fullName: string;
}

/** A user group a mention may name. */
export interface MentionableGroup {
  id: number;
  name: string;
}

/** A channel a `#**channel**` link may name. */
export interface LinkableStream {
  id: number;
  name: string;
}

/** A realm (custom) emoji. */
export interface RealmEmojiInfo {
  id: string;
  name: string;
  /** Path or URL of the image. */
  sourceUrl: string;
  deactivated: boolean;
}

/** Inputs: realm data lookups (read-only). */
export interface ZulipRenderContext {
  /** Active users by id. */
  userById(id: number): MentionableUser | undefined;
  /** Active users whose full name equals `name` case-insensitively (Zulip allows duplicates). */
  usersByFullName(name: string): readonly MentionableUser[];
  /** Non-deactivated user groups by exact name (system groups are not mentionable by name). */
  groupByName(name: string): MentionableGroup | undefined;
  /** Channels the sender may link to, by name (case-insensitive) and id. */
  streamByName(name: string): LinkableStream | undefined;
  streamById(id: number): LinkableStream | undefined;
  /** The realm's linkifiers in order (for `applyLinkifiers`). */
  linkifiers: readonly Linkifier[];
  /** Realm emoji by name. */
  realmEmoji(name: string): RealmEmojiInfo | undefined;
  /** The sender's `translate_emoticons` setting. */
  translateEmoticons: boolean;
  /** Outputs, filled while rendering. */
  out: RenderFindings;
}

/** What rendering found (Zulip's `MessageRenderingResult`). */
export interface RenderFindings {
  /** Users mentioned with `@**…**` (not silent). */
  mentionedUserIds: Set<number>;
  /** Groups mentioned with `@*…*` (not silent). */
  mentionedGroupIds: Set<number>;
  /** `@**all**`/`@**everyone**`/`@**channel**`/`@**stream**` (not silent). */
  streamWildcard: boolean;
  /** `@**topic**` (not silent). */
  topicWildcard: boolean;
}

/** Empty findings. */
export function emptyFindings(): RenderFindings {
  return { mentionedUserIds: new Set(), mentionedGroupIds: new Set(), streamWildcard: false, topicWildcard: false };
}
