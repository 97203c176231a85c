/**
 * Shared helpers for the Zulip-syntax plugin tests: render with the full message renderer and a
 * small realm context (no realm emoji, no linkifiers unless given).
 */
import { emptyFindings, type RealmEmojiInfo, type ZulipRenderContext } from '../../src/markdown/context.js';
import type { Linkifier } from '../../src/domain/linkifiers.js';
import { zulipRenderer } from '../../src/markdown/zulip-renderer.js';

export interface ContextOptions {
  linkifiers?: Linkifier[];
  realmEmoji?: Record<string, RealmEmojiInfo>;
  translateEmoticons?: boolean;
  /** UNIX seconds; default {@link SUPPORT_NOW_SECONDS}. */
  nowSeconds?: number;
}

/** "Now" of the test contexts: 2026-11-21T06:00:00Z. */
export const SUPPORT_NOW_SECONDS = Date.UTC(2026, 10, 21, 6, 0, 0) / 1000;

export function context(o: ContextOptions = {}): ZulipRenderContext {
  return {
    userById: () => undefined,
    usersByFullName: () => [],
    groupByName: () => undefined,
    streamByName: () => undefined,
    streamById: () => undefined,
    linkifiers: o.linkifiers ?? [],
    realmEmoji: (name) => o.realmEmoji?.[name],
    translateEmoticons: o.translateEmoticons ?? false,
    nowSeconds: o.nowSeconds ?? SUPPORT_NOW_SECONDS,
    out: emptyFindings(),
  };
}

/** Render `content` as a message in a realm at https://chat.example.com. */
export function render(content: string, o: ContextOptions = {}): string {
  return zulipRenderer.render(content, { realmUrl: 'https://chat.example.com', zulip: context(o) });
}
