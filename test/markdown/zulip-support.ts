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
}

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
    out: emptyFindings(),
  };
}

/** Render `content` as a message in a realm at https://chat.example.com. */
export function render(content: string, o: ContextOptions = {}): string {
  return zulipRenderer.render(content, { realmUrl: 'https://chat.example.com', zulip: context(o) });
}
