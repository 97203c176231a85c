/**
 * The full Zulip-flavored renderer used for message content: plain Markdown plus every
 * Zulip-specific plugin. Built once at module load; `realm/message-render.ts` renders every
 * message with it (realm data and findings travel in `RenderOptions.zulip`, see `context.ts`).
 *
 * To add a Zulip syntax, append its plugin to {@link ZULIP_PLUGINS} (one line); the order of the
 * list does not matter for inline patterns (they run by Zulip priority).
 */
import { basicMarkdownPlugin, createRenderer, type MarkdownPlugin, type Renderer } from './render.js';
import { mentionsPlugin } from './plugins/mentions.js';
import { channelLinksPlugin } from './plugins/channel-links.js';
import { emojiPlugin } from './plugins/emoji.js';
import { emoticonsPlugin } from './plugins/emoticons.js';
import { spoilerPlugin } from './plugins/spoiler.js';
import { mathPlugin } from './plugins/math.js';
import { timestampPlugin } from './plugins/timestamp.js';
import { linkifiersPlugin } from './plugins/linkifiers.js';
import { codeLanguagePlugin } from './plugins/code-language.js';
import { inlinePreviewsPlugin } from './plugins/inline-previews.js';

/** Every Zulip-specific plugin, in addition to `basicMarkdownPlugin`. */
export const ZULIP_PLUGINS: readonly MarkdownPlugin[] = [
  mentionsPlugin,
  channelLinksPlugin,
  emojiPlugin,
  emoticonsPlugin,
  spoilerPlugin,
  mathPlugin,
  timestampPlugin,
  linkifiersPlugin,
  codeLanguagePlugin,
  inlinePreviewsPlugin,
];

/** The one shared full renderer instance. */
export const zulipRenderer: Renderer = createRenderer([basicMarkdownPlugin, ...ZULIP_PLUGINS]);
