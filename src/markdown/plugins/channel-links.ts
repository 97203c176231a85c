/**
 * Links to channels, topics and messages (zerver/lib/markdown/__init__.py `StreamPattern`,
 * `StreamTopicPattern`, `StreamTopicMessagePattern`; zerver/lib/url_encoding.py):
 *
 * - `#**channel**` (priority 85) →
 *   `<a class="stream" data-stream-id="3" href="/#narrow/channel/3-Scotland">#Scotland</a>`
 * - `#**channel>topic**` (priority 87) →
 *   `<a class="stream-topic" data-stream-id="3" href="/#narrow/channel/3-Scotland/topic/t/with/12">#Scotland &gt; t</a>`
 *   (`/with/<id>` names the latest message of the topic the sender can see, when there is one);
 *   the empty topic shows as `<em>general chat</em>`.
 * - `#**channel>topic@123**` (priority 89) →
 *   `<a class="message-link" href="/#narrow/channel/3-Scotland/topic/t/near/123">#Scotland &gt; t @ 💬</a>`
 *
 * The channel is looked up by exact name among those the sender may link to
 * (`env.zulip.streamByName`); unknown channels, and every link when the render has no realm
 * context, stay literal. Attributes are in lexical order, as Python-Markdown writes them.
 */
import type { MarkdownPlugin } from '../render.js';
import type { ZulipRenderContext } from '../context.js';
import { escapeAttr, escapeText, type InlineMatch, type InlinePattern } from './inline-engine.js';
import { BEFORE_MENTION_ALLOWED } from './mentions.js';

/** Zulip's `Message.EMPTY_TOPIC_FALLBACK_NAME`, shown for links to the empty topic. */
export const EMPTY_TOPIC_FALLBACK_NAME = 'general chat';

const STREAM_LINK_RE = new RegExp(String.raw`${BEFORE_MENTION_ALLOWED}#\*\*([^*]+)\*\*`, 'g');
const STREAM_TOPIC_LINK_RE = new RegExp(String.raw`${BEFORE_MENTION_ALLOWED}#\*\*([^*>]+)>([^*]*)\*\*`, 'g');
const STREAM_TOPIC_MESSAGE_LINK_RE = new RegExp(
  String.raw`${BEFORE_MENTION_ALLOWED}#\*\*([^*>]+)>([^*]*)@(\d+)\*\*`,
  'g',
);

/** Rescan hint (inline-engine.ts `resume`): links open with `#**`, hold no `*`, close with `**`; a
 * match ends with `*`, which the lookbehind treats like a placeholder's end (deferred replacement). */
const STAR_BLOCKER = { isBlocker: (data: string, i: number) => data.charCodeAt(i) === 0x2a, back: 3, openers: '#' };

const EXTRA_ESCAPES = /[!'()*]/g;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Zulip's `hash_util_encode`: percent-encode UTF-8 like Python's `quote(s, safe="")` (only
 * `A-Za-z0-9_.-~` stay), then `.` → `.2E` and `%` → `.` (so `a b.c` → `a.20b.2Ec`).
 */
export function hashUtilEncode(s: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(s);
  } catch {
    encoded = encodeURIComponent(s.replace(LONE_SURROGATE, '\uFFFD')); // URIError on lone surrogates
  }
  return encoded
    .replace(EXTRA_ESCAPES, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())
    .replaceAll('.', '%2E')
    .replaceAll('%', '.');
}

/** Zulip's `encode_stream`: `<id>-<name with spaces as dashes, hash-encoded>`. */
export function encodeStream(streamId: number, name: string): string {
  return `${streamId}-${hashUtilEncode(name.replaceAll(' ', '-'))}`;
}

function streamId(zulip: ZulipRenderContext | undefined, name: string): number | undefined {
  return zulip?.streamByName(name)?.id;
}

/** The escaped link text `#channel > topic` (topic `""` → `<em>general chat</em>`). */
function topicText(streamName: string, topic: string): string {
  const topicHtml = topic === '' ? `<em>${EMPTY_TOPIC_FALLBACK_NAME}</em>` : escapeText(topic);
  return `${escapeText(`#${streamName} > `)}${topicHtml}`;
}

function plainTopicText(streamName: string, topic: string): string {
  return `#${streamName} > ${topic === '' ? EMPTY_TOPIC_FALLBACK_NAME : topic}`;
}

function matched(m: RegExpExecArray, html: string, text: string): InlineMatch {
  return { node: { kind: 'html', html, text }, start: m.index, end: m.index + m[0].length };
}

/** `#**channel>topic@id**` (Zulip priority 89). */
export const streamTopicMessagePattern: InlinePattern = {
  name: 'stream_topic_message',
  priority: 89,
  regex: STREAM_TOPIC_MESSAGE_LINK_RE,
  resume: STAR_BLOCKER,
  handle(m, _data, ctx) {
    const name = m[1]!;
    const topic = m[2]!;
    const id = streamId(ctx.env.zulip, name);
    if (id === undefined) return null;
    const href = `/#narrow/channel/${encodeStream(id, name)}/topic/${hashUtilEncode(topic)}/near/${m[3]}`;
    const html = `<a class="message-link" href="${escapeAttr(href)}">${topicText(name, topic)} @ 💬</a>`;
    return matched(m, html, `${plainTopicText(name, topic)} @ 💬`);
  },
};

/** `#**channel>topic**` (Zulip priority 87). */
export const streamTopicPattern: InlinePattern = {
  name: 'topic',
  priority: 87,
  regex: STREAM_TOPIC_LINK_RE,
  resume: STAR_BLOCKER,
  handle(m, _data, ctx) {
    const zulip = ctx.env.zulip;
    const name = m[1]!;
    const topic = m[2]!;
    const id = streamId(zulip, name);
    if (id === undefined) return null;
    let href = `/#narrow/channel/${encodeStream(id, name)}/topic/${hashUtilEncode(topic)}`;
    const withId = zulip!.topicLatestMessageId?.(id, topic);
    if (withId !== undefined) href += `/with/${withId}`;
    const html = `<a class="stream-topic" data-stream-id="${id}" href="${escapeAttr(href)}">${topicText(name, topic)}</a>`;
    return matched(m, html, plainTopicText(name, topic));
  },
};

/** `#**channel**` (Zulip priority 85). */
export const streamPattern: InlinePattern = {
  name: 'stream',
  priority: 85,
  regex: STREAM_LINK_RE,
  resume: STAR_BLOCKER,
  handle(m, _data, ctx) {
    const name = m[1]!;
    const id = streamId(ctx.env.zulip, name);
    if (id === undefined) return null;
    const href = `/#narrow/channel/${encodeStream(id, name)}`;
    const text = `#${name}`;
    return matched(m, `<a class="stream" data-stream-id="${id}" href="${escapeAttr(href)}">${escapeText(text)}</a>`, text);
  },
};

/** The channel-links plugin (channel, topic and message links). */
export const channelLinksPlugin: MarkdownPlugin = {
  name: 'channel-links',
  inlinePatterns: [streamTopicMessagePattern, streamTopicPattern, streamPattern],
};
