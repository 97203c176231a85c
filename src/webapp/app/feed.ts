/**
 * The messages of the open narrow: `GET /json/messages` (https://zulip.com/api/get-messages)
 * with the narrow's terms, newest page first, older pages as the reader scrolls up; live
 * messages merged in by id (so a refetch after a reconnect never duplicates one).
 */
import { api } from './api.js';
import { matchesNarrow, type NarrowContext } from './narrow.js';
import { feed, feedState, me, narrow, noteTopic, selectedId, streamById, userByEmail } from './state.js';
import type { Message, NarrowTerm } from './types.js';

/** Messages per page: the first page is small (fast first paint), older pages larger. */
const FIRST_PAGE = 100;
const OLDER_PAGE = 1000;

/** Bumped on every narrow change: answers for an older narrow are dropped. */
let generation = 0;

export function narrowContext(): NarrowContext {
  return {
    myUserId: me.value.userId,
    streamName: (id) => streamById(id)?.name,
    userIdByEmail: (email) => userByEmail(email)?.user_id,
  };
}

interface MessagesAnswer {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
}

function fetchPage(terms: readonly NarrowTerm[], anchor: string | number, before: number, after: number) {
  return api<MessagesAnswer>('GET', 'messages', {
    anchor,
    num_before: before,
    num_after: after,
    narrow: terms as unknown as unknown[],
    apply_markdown: true,
    client_gravatar: false,
  });
}

/** Merges messages into the feed by id (server copies replace local echoes and older copies). */
export function mergeIntoFeed(messages: readonly Message[]): void {
  if (messages.length === 0) return;
  const byId = new Map(feed.value.map((m) => [m.id, m]));
  for (const m of messages) {
    byId.set(m.id, m);
    if (m.type === 'stream' && m.stream_id !== undefined) noteTopic(m.stream_id, m.subject, m.id);
  }
  const merged = [...byId.values()];
  // Local echoes (negative ids) stay last until the server's copy replaces them.
  merged.sort((a, b) => (a.id < 0 ? Infinity : a.id) - (b.id < 0 ? Infinity : b.id) || b.id - a.id);
  feed.value = merged;
}

/** Opens a narrow: the newest page of its messages (`anchor=newest`). */
export async function openNarrow(terms: readonly NarrowTerm[]): Promise<void> {
  const mine = ++generation;
  narrow.value = terms;
  feed.value = [];
  selectedId.value = null;
  feedState.value = { loading: true, foundOldest: false, foundNewest: true, error: '' };
  try {
    const page = await fetchPage(terms, 'newest', FIRST_PAGE, 0);
    if (mine !== generation) return;
    mergeIntoFeed(page.messages);
    feedState.value = { loading: false, foundOldest: page.found_oldest, foundNewest: true, error: '' };
    const last = feed.value[feed.value.length - 1];
    selectedId.value = last?.id ?? null;
  } catch (error) {
    if (mine !== generation) return;
    feedState.value = { loading: false, foundOldest: true, foundNewest: true, error: (error as Error).message };
  }
}

/** Loads the page before the oldest loaded message (scrolling up). */
export async function loadOlder(): Promise<void> {
  const state = feedState.value;
  const oldest = feed.value.find((m) => m.id > 0);
  if (state.loading || state.foundOldest || oldest === undefined) return;
  const mine = generation;
  feedState.value = { ...state, loading: true };
  try {
    const page = await fetchPage(narrow.value, oldest.id, OLDER_PAGE, 0);
    if (mine !== generation) return;
    mergeIntoFeed(page.messages.filter((m) => m.id !== oldest.id));
    feedState.value = { ...feedState.value, loading: false, foundOldest: page.found_oldest };
  } catch (error) {
    if (mine !== generation) return;
    feedState.value = { ...feedState.value, loading: false, error: (error as Error).message };
  }
}

/**
 * A new message from the event stream: added when it belongs to the open narrow. When the
 * client cannot decide (full-text search), the newest page is fetched again and merged.
 */
export function receiveMessage(message: Message): void {
  if (message.type === 'stream' && message.stream_id !== undefined) noteTopic(message.stream_id, message.subject, message.id);
  const verdict = matchesNarrow(message, narrow.value, narrowContext());
  if (verdict === true) {
    const withoutEcho = message.local_id === undefined ? feed.value : feed.value.filter((m) => m.local_id !== message.local_id);
    feed.value = withoutEcho;
    mergeIntoFeed([message]);
  } else if (verdict === null) {
    void refreshNewest();
  }
}

/** Refetches the newest page of the open narrow and merges it (after a lost queue, or an undecidable message). */
export async function refreshNewest(): Promise<void> {
  const mine = generation;
  try {
    const page = await fetchPage(narrow.value, 'newest', FIRST_PAGE, 0);
    if (mine === generation) mergeIntoFeed(page.messages);
  } catch {
    // The next event or reconnect tries again.
  }
}

/** Applies `fn` to the loaded copies of the given messages. */
export function updateMessages(ids: readonly number[], fn: (m: Message) => Message): void {
  const wanted = new Set(ids);
  if (!feed.value.some((m) => wanted.has(m.id))) return;
  feed.value = feed.value.map((m) => (wanted.has(m.id) ? fn(m) : m));
}

/** Removes messages from the feed (deleted, or moved out of the narrow). */
export function removeMessages(ids: readonly number[]): void {
  const gone = new Set(ids);
  if (feed.value.some((m) => gone.has(m.id))) feed.value = feed.value.filter((m) => !gone.has(m.id));
}
