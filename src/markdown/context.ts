/**
 * The realm as Zulip-specific Markdown syntax sees it, and what rendering reports back. Built per
 * message by `realm/message-render.ts` from the realm state (cheap: lookups are closures over
 * the state's maps) and handed to the renderer as `RenderOptions.zulip`; plugins read it from the
 * render env as `env.zulip` (absent for plain renders such as tests of basic Markdown, where
 * Zulip-specific syntax stays literal text).
 */
import type { Linkifier } from '../domain/linkifiers.js';

/** A user a mention may name. */
export interface MentionableUser {
  id: number;
  fullName: string;
  /** False for deactivated users: Zulip still renders their mentions, but silent (absent = active). */
  isActive?: boolean;
}

/** A user group a mention may name. */
export interface MentionableGroup {
  id: number;
  name: string;
  /** Deactivated groups still render, but silent (absent = active). */
  deactivated?: boolean;
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
  /**
   * Users by id, deactivated ones included (with `isActive: false`, rendered as silent mentions,
   * as Zulip's `MentionBackend` does); users the sender may not know of are absent.
   */
  userById(id: number): MentionableUser | undefined;
  /**
   * Users whose full name equals `name` case-insensitively (Zulip allows duplicates), deactivated
   * ones included; sorted by id (the mention plugin takes the last, as Zulip's name map does).
   */
  usersByFullName(name: string): readonly MentionableUser[];
  /** User groups by exact name, deactivated ones included (system groups are not mentionable by name). */
  groupByName(name: string): MentionableGroup | undefined;
  /**
   * Channels the sender may link to (Zulip: the channels whose content the sender can access),
   * by exact, case-sensitive name (Zulip's `Q(name=...)` lookup) and by id.
   */
  streamByName(name: string): LinkableStream | undefined;
  streamById(id: number): LinkableStream | undefined;
  /**
   * For `#**channel>topic**` links (Zulip's `/with/` operand, FL 400): the id of the latest
   * message in that channel's topic (topic compared case-insensitively) that the sender can see,
   * or undefined when there is none (then the link has no `/with/` part). Optional: absent = none.
   */
  topicLatestMessageId?(streamId: number, topic: string): number | undefined;
  /** The realm's linkifiers in order (for `applyLinkifiers`). */
  linkifiers: readonly Linkifier[];
  /** Realm emoji by name. */
  realmEmoji(name: string): RealmEmojiInfo | undefined;
  /** Realm `inline_image_preview` (default on): inline image and video previews. */
  inlineImagePreview?: boolean;
  /**
   * The camo proxy for external media (Zulip's `CAMO_URI` + `CAMO_KEY`); absent = external
   * videos are linked directly.
   */
  camo?: import('../domain/camo.js').CamoConfig;
  /**
   * An uploaded image's preview data by path id (`{realm_id}/…/{name}` under `/user_uploads/`),
   * or undefined when the file is not an image the server could decode (then no preview).
   */
  uploadPreview?(pathId: string): import('./plugins/inline-previews.js').UploadPreview | undefined;
  /** The sender's `translate_emoticons` setting. */
  translateEmoticons: boolean;
  /**
   * "Now" for this render, UNIX seconds: the sending command's clock (`ctx.now()` in handlers),
   * never the wall clock read inside the renderer. Fields a `<time:…>` leaves out come from it,
   * and only its UTC date is used (realm/render-offload.ts reuses a render made earlier that day).
   */
  nowSeconds: number;
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
