/**
 * Zulip mentions (zerver/lib/markdown/__init__.py `UserMentionPattern`, `UserGroupMentionPattern`,
 * `BlockQuoteProcessor.clean`; zerver/lib/mention.py):
 *
 * - `@**Full Name**`, `@**Full Name|id**`, `@**|id**` (priority 95) →
 *   `<span class="user-mention" data-user-id="4">@Full Name</span>`; silent `@_**…**` →
 *   class `user-mention silent`, text without `@`. A deactivated user's mention is always silent.
 *   `@**name|id**` requires the exact (case-sensitive) full name of user `id`.
 * - Wildcards `@**all**`, `@**everyone**`, `@**channel**`, `@**stream**` →
 *   `<span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span>`;
 *   `@**topic**` → `<span class="topic-mention">@topic</span>`.
 * - User groups `@*name*` (priority 65) → `<span class="user-group-mention" data-user-group-id="5">@name</span>`;
 *   silent `@_*name*` → class `user-group-mention silent`, text without `@`.
 * - Mentions inside block quotes (`>` and ```quote) are silenced, as Zulip rewrites quoted lines.
 *
 * Unknown names, and every mention when the render has no realm context (`env.zulip`), stay literal.
 * Non-silent mentions are reported in `env.zulip.out` (users, groups, channel/topic wildcards).
 * Attributes are written in lexical order, as Python-Markdown's serializer does.
 */
import type { StateCore } from 'markdown-it';
import type { MarkdownPlugin } from '../render.js';
import type { MentionableUser, ZulipRenderContext } from '../context.js';
import { escapeAttr, escapeText, type InlineMatch, type InlinePattern } from './inline-engine.js';

/** Zulip's `BEFORE_MENTION_ALLOWED_REGEX`: start of text, whitespace, or one of `'"({[/<`. */
export const BEFORE_MENTION_ALLOWED = String.raw`(?<![^\s'"({[\/<])`;

/** Zulip's `MENTIONS_RE` (groups: 1 silent `_`, 2 name). */
const MENTIONS_RE = new RegExp(String.raw`${BEFORE_MENTION_ALLOWED}@(_?)\*\*([^*]+)\*\*`, 'g');
/** Zulip's `USER_GROUP_MENTIONS_RE` (groups: 1 silent `_`, 2 name). */
const USER_GROUP_MENTIONS_RE = new RegExp(String.raw`${BEFORE_MENTION_ALLOWED}@(_?)\*([^*]+)\*`, 'g');
/** `@**name|id**` / `@**|id**` (Python `re.match(r"(?P<full_name>.+)?\|(?P<user_id>\d+)$")`). */
const ID_SYNTAX_RE = /^([^\n]+)?\|(\d+)\n?$/;

/**
 * Rescan hint (inline-engine.ts `resume`): mentions open with `@**`, `@_**`, `@*` or `@_*`, hold
 * no `*`, and close with `*`; `handle` only reads the match.
 * A match ends with `*`, which the lookbehind treats like a placeholder's end (deferred replacement).
 */
const STAR_BLOCKER = { isBlocker: (data: string, i: number) => data.charCodeAt(i) === 0x2a, back: 3, openers: '@' };

const STREAM_WILDCARDS: ReadonlySet<string> = new Set(['all', 'everyone', 'stream', 'channel']);
const TOPIC_WILDCARD = 'topic';

/** The user a `@**…**` text names, or null (the mention stays literal). */
function findUser(zulip: ZulipRenderContext, name: string): MentionableUser | null {
  const idSyntax = ID_SYNTAX_RE.exec(name);
  if (idSyntax !== null) {
    const user = zulip.userById(Number(idSyntax[2]));
    if (user === undefined) return null;
    const fullName = idSyntax[1];
    // `@**user_1_name|id_for_user_2**` is invalid syntax: the name must match exactly.
    if (fullName !== undefined && user.fullName !== fullName) return null;
    return user;
  }
  const users = zulip.usersByFullName(name);
  return users.length > 0 ? users[users.length - 1]! : null;
}

function span(cls: string, idAttr: string, text: string): string {
  return `<span class="${cls}"${idAttr}>${escapeText(text)}</span>`;
}

/** `@**…**` user and wildcard mentions (Zulip priority 95). */
export const userMentionPattern: InlinePattern = {
  name: 'usermention',
  priority: 95,
  regex: MENTIONS_RE,
  resume: STAR_BLOCKER,
  handle(m, _data, ctx): InlineMatch | null {
    const zulip = ctx.env.zulip;
    if (zulip === undefined) return null;
    let silent = m[1] === '_';
    let name = m[2]!;
    let cls: string;
    let idAttr = '';
    if (STREAM_WILDCARDS.has(name)) {
      if (!silent) zulip.out.streamWildcard = true;
      cls = 'user-mention channel-wildcard-mention';
      idAttr = ' data-user-id="*"';
    } else if (name === TOPIC_WILDCARD) {
      if (!silent) zulip.out.topicWildcard = true;
      cls = 'topic-mention';
    } else {
      const user = findUser(zulip, name);
      if (user === null) return null;
      if (user.isActive === false) silent = true;
      if (!silent) zulip.out.mentionedUserIds.add(user.id);
      name = user.fullName;
      cls = 'user-mention';
      idAttr = ` data-user-id="${user.id}"`;
    }
    const text = silent ? name : `@${name}`;
    if (silent) cls += ' silent';
    return { node: { kind: 'html', html: span(cls, idAttr, text), text }, start: m.index, end: m.index + m[0].length };
  },
};

/** `@*group*` user-group mentions (Zulip priority 65). */
export const userGroupMentionPattern: InlinePattern = {
  name: 'usergroupmention',
  priority: 65,
  regex: USER_GROUP_MENTIONS_RE,
  resume: STAR_BLOCKER,
  handle(m, _data, ctx): InlineMatch | null {
    const zulip = ctx.env.zulip;
    if (zulip === undefined) return null;
    const group = zulip.groupByName(m[2]!);
    if (group === undefined) return null;
    const silent = m[1] === '_' || group.deactivated === true;
    if (!silent) zulip.out.mentionedGroupIds.add(group.id);
    const text = silent ? group.name : `@${group.name}`;
    const cls = silent ? 'user-group-mention silent' : 'user-group-mention';
    const html = span(cls, ` data-user-group-id="${escapeAttr(String(group.id))}"`, text);
    return { node: { kind: 'html', html, text }, start: m.index, end: m.index + m[0].length };
  },
};

/** Zulip's `BlockQuoteProcessor.clean`: `@**x**` → `@_**x**`, then `@*g*` → `@_*g*`, per line. */
const QUOTED_MENTION_RE = new RegExp(MENTIONS_RE.source, 'g');
const QUOTED_GROUP_MENTION_RE = new RegExp(USER_GROUP_MENTIONS_RE.source, 'g');

/** Silences the mentions of one line of quoted text. */
export function silenceMentions(line: string): string {
  if (!line.includes('@')) return line;
  return line
    .replace(QUOTED_MENTION_RE, (_m, _s: string, name: string) => `@_**${name}**`)
    .replace(QUOTED_GROUP_MENTION_RE, (_m, _s: string, name: string) => `@_*${name}*`);
}

/**
 * Core rule run before inline rendering: text inside block quotes (any depth) gets its mentions
 * silenced line by line. Differs from Zulip only for a `>` marker directly followed by the
 * mention (`>@**x**`), where Zulip's lookbehind sees the `>` and leaves the mention loud.
 */
function silenceQuotedMentions(state: StateCore): void {
  let depth = 0;
  for (const token of state.tokens) {
    if (token.type === 'blockquote_open') depth++;
    else if (token.type === 'blockquote_close') depth--;
    else if (depth > 0 && (token.type === 'inline' || token.type === 'code_block') && token.content.includes('@')) {
      token.content = token.content.split('\n').map(silenceMentions).join('\n');
    }
  }
}

/** The mentions plugin (user, wildcard and group mentions). */
export const mentionsPlugin: MarkdownPlugin = {
  name: 'mentions',
  inlinePatterns: [userMentionPattern, userGroupMentionPattern],
  configure(md) {
    md.core.ruler.push('zulip_silence_quoted_mentions', silenceQuotedMentions);
  },
};
