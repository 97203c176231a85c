/**
 * `topic_links` of message objects (https://zulip.com/api/get-message): the links in a channel
 * message's topic, Zulip's
 * `topic_links(linkifiers_key, topic_name)` (zerver/lib/markdown/__init__.py):
 *
 * 1. every realm linkifier, in order, finds its matches (`applyLinkifiers`, one linkifier at a
 *    time; a linkifier's matches may overlap each other at this stage);
 * 2. bare URLs: the topic is cut at `[ !;),'"]`; in each piece the first web link (the same
 *    regex as bare URLs in messages) counts; a URL without a scheme gets `https://`;
 * 3. overlapping matches are dropped, earlier linkifiers first, then URLs, each in position order;
 *    the rest are returned in position order as `{text, url}`.
 *
 * Zulip's quirks are kept: a linkifier match's position is where its whole prepared match starts
 * (one character before the text when a separator precedes it), a URL's position is the start of
 * its piece, and overlap is measured from those positions over the text's length. URLs are not
 * HTML-escaped here (clients escape them).
 */
import { applyLinkifiers, linkifiersOf } from './linkifiers.js';
import type { RealmState } from './realm-state.js';
import { buildWebLinkRegex } from './web-link-regex.js';

/** One `topic_links` entry. */
export interface TopicLink {
  text: string;
  url: string;
}

interface Candidate extends TopicLink {
  index: number;
}

const SPLITTER = /[ !;),'"]/;
/** The bare-URL regex, non-global (matched per piece). */
const WEB_LINK_RE = new RegExp(buildWebLinkRegex().source, 'u');
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+\-.]*:/;

/** `urlsplit(url)._replace(scheme="https").geturl()` with Zulip's netloc fix for scheme-less URLs. */
function withHttps(url: string): string {
  if (HAS_SCHEME.test(url)) return url;
  let rest = url;
  let tail = '';
  const cut = rest.search(/[?#]/);
  if (cut >= 0) {
    tail = rest.slice(cut);
    rest = rest.slice(0, cut);
  }
  if (rest.startsWith('//')) return `https:${rest}${tail}`;
  const slash = rest.indexOf('/');
  const netloc = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? '' : rest.slice(slash);
  // `geturl()` drops an empty query/fragment marker ("a.com/?" → "https://a.com/").
  const normalizedTail = tail.replace(/^\?(?=#|$)/, '').replace(/#$/, '');
  return `https://${netloc}${path}${normalizedTail}`;
}

/** Per linkifier list (replaced on every change): topic → links. Bounded; cleared when full. */
const cache = new WeakMap<object, Map<string, readonly TopicLink[]>>();
const CACHE_LIMIT = 10_000;
const NO_LINKIFIERS = {};

/**
 * Zulip's `topic_links` for `topic` with the realm's linkifiers (`[]` for the empty topic).
 * Results are cached per topic for the current linkifier list; treat them as read-only.
 */
export function topicLinks(state: RealmState, topic: string): readonly TopicLink[] {
  if (topic === '') return [];
  const items = linkifiersOf(state).items;
  // No linkifiers: one shared cache (an absent list is a fresh empty array per call).
  const key = items.length === 0 ? NO_LINKIFIERS : items;
  let byTopic = cache.get(key);
  if (byTopic === undefined) {
    byTopic = new Map();
    cache.set(key, byTopic);
  }
  let links = byTopic.get(topic);
  if (links === undefined) {
    if (byTopic.size >= CACHE_LIMIT) byTopic.clear();
    links = computeTopicLinks(items, topic);
    byTopic.set(topic, links);
  }
  return links;
}

function computeTopicLinks(items: ReturnType<typeof linkifiersOf>['items'], topic: string): TopicLink[] {
  const matches: Candidate[] = [];
  for (const linkifier of items) {
    for (const m of applyLinkifiers(topic, [linkifier])) {
      matches.push({ text: m.text, url: m.url, index: m.start === 0 ? 0 : m.start - 1 });
    }
  }
  // Linkifier matches are already grouped by precedence; within one linkifier, by position.
  let pos = 0;
  while (pos < topic.length) {
    const next = topic.slice(pos).search(SPLITTER);
    const end = next < 0 ? topic.length : pos + next;
    const m = WEB_LINK_RE.exec(topic.slice(pos, end));
    const url = m?.groups?.['url'];
    if (url !== undefined) matches.push({ text: url, url: withHttps(url), index: pos });
    pos = end + 1;
  }
  const overlapping = (a: Candidate, b: Candidate) =>
    (b.index <= a.index && a.index < b.index + b.text.length) || (a.index <= b.index && b.index < a.index + a.text.length);
  const applied: Candidate[] = [];
  for (const m of matches) if (applied.every((old) => !overlapping(old, m))) applied.push(m);
  applied.sort((a, b) => a.index - b.index);
  return applied.map(({ text, url }) => ({ text, url }));
}
