/**
 * Rendering a message's content in its realm (issue 7 fills this in): Zulip-flavored Markdown with
 * the realm's users, groups, channels, emoji and linkifiers, plus what delivery needs from the
 * rendering — mention flags per recipient and the wildcard mentions the send permission checks.
 * Used by sending (`handlers/messages.ts`) and content edits (`PATCH /messages/{id}`), so both
 * render identically.
 */
import type { RealmState } from './realm-state.js';
import { renderMarkdown } from '../markdown/render.js';

/** Where the message goes; mentions and topic wildcards depend on it. */
export interface RenderTarget {
  senderId: number;
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
}

/** Renders `content` (already normalized by `normalizeContent`) for `target` in `state`. */
export function renderMessageContent(_state: RealmState, content: string, _target: RenderTarget): RenderedMessage {
  return { rendered: renderMarkdown(content), userFlags: {}, streamWildcard: false, topicWildcard: false };
}
