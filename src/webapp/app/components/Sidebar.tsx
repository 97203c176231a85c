/**
 * The left sidebar, `nav` named "Channels": views (Inbox, all messages, mentions, starred),
 * subscribed channels with unread counts, the open channel's topics with their counts, and
 * direct-message conversations. Every entry narrows the feed.
 */
import { loadTopics, report } from '../actions.js';
import { openNarrow } from '../feed.js';
import { narrowPlace, narrowToHash } from '../narrow.js';
import {
  dmConversations,
  dmKey,
  drawer,
  mentionedUnread,
  narrow,
  panel,
  streamByName,
  subscriptions,
  topicKey,
  topicsByStream,
  unread,
  unreadByDm,
  unreadByStream,
  unreadByTopic,
  userName,
  users,
} from '../state.js';
import type { NarrowTerm } from '../types.js';

/** Opens a narrow from a sidebar click (closing the phone drawer and any panel). */
export function go(terms: NarrowTerm[]): void {
  panel.value = 'none';
  drawer.value = 'none';
  syncHash(terms);
  void openNarrow(terms);
  const channel = narrowPlace(terms).channel;
  const stream = channel === undefined ? undefined : streamByName(channel);
  if (stream !== undefined) loadTopics(stream.stream_id).catch(report);
}

/** Keeps the URL's hash in step with the narrow, without re-triggering navigation. */
export function syncHash(terms: readonly NarrowTerm[]): void {
  const hash = narrowToHash(terms);
  if (hash !== (location.hash || '#')) history.pushState(null, '', hash === '#' ? location.pathname : hash);
}

function Count({ n, label }: { n: number | undefined; label: string }) {
  if (!n) return null;
  return (
    <span class="unread-count" aria-label={`${n} unread ${label}`}>
      {n}
    </span>
  );
}

/** The DM narrow operand: peers' emails, comma-joined. */
export function dmOperand(userIds: readonly number[]): string {
  return userIds.map((id) => users.value.get(id)?.email ?? String(id)).join(',');
}

export function Sidebar() {
  const place = narrowPlace(narrow.value);
  const openStream = place.channel === undefined ? undefined : streamByName(place.channel);
  const isView = (operand: string) => narrow.value.length === 1 && narrow.value[0]!.operator === 'is' && narrow.value[0]!.operand === operand;
  const topics = openStream === undefined ? [] : [...(topicsByStream.value.get(openStream.stream_id) ?? new Map<string, number>()).entries()].sort((a, b) => b[1] - a[1]);
  return (
    <nav class="sidebar" aria-label="Channels">
      <h2 class="sidebar-heading">Views</h2>
      <ul class="view-list">
        <li>
          <button type="button" class={panel.value === 'inbox' ? 'active' : ''} onClick={() => { panel.value = 'inbox'; drawer.value = 'none'; }}>
            Inbox <Count n={unread.value.size} label="messages" />
          </button>
        </li>
        <li>
          <button type="button" class={narrow.value.length === 0 && panel.value === 'none' ? 'active' : ''} onClick={() => go([])}>
            All messages
          </button>
        </li>
        <li>
          <button type="button" class={isView('mentioned') ? 'active' : ''} onClick={() => go([{ operator: 'is', operand: 'mentioned' }])}>
            Mentions <Count n={mentionedUnread.value.size} label="mentions" />
          </button>
        </li>
        <li>
          <button type="button" class={isView('starred') ? 'active' : ''} onClick={() => go([{ operator: 'is', operand: 'starred' }])}>
            Starred messages
          </button>
        </li>
      </ul>
      <h2 class="sidebar-heading">Channels</h2>
      <ul class="stream-list">
        {subscriptions.value.map((s) => (
          <li key={s.stream_id}>
            <button
              type="button"
              class={openStream?.stream_id === s.stream_id && place.topic === undefined ? 'active' : ''}
              onClick={() => go([{ operator: 'channel', operand: s.name }])}
            >
              <span class="stream-swatch" style={{ background: s.color }} aria-hidden="true" />
              <span class="stream-name">{s.name}</span>
              <Count n={unreadByStream.value.get(s.stream_id)} label="messages" />
            </button>
            {openStream?.stream_id === s.stream_id && topics.length > 0 && (
              <ul class="topic-list" aria-label={`Topics of ${s.name}`}>
                {topics.slice(0, 30).map(([topic]) => (
                  <li key={topic}>
                    <button
                      type="button"
                      class={place.topic?.toLowerCase() === topic.toLowerCase() ? 'active' : ''}
                      onClick={() => go([{ operator: 'channel', operand: s.name }, { operator: 'topic', operand: topic }])}
                    >
                      <span class="topic-name">{topic === '' ? 'general chat' : topic}</span>
                      <Count n={unreadByTopic.value.get(topicKey(s.stream_id, topic))} label="messages" />
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <h2 class="sidebar-heading">Direct messages</h2>
      <ul class="dm-list">
        {dmConversations.value.slice(0, 20).map((c) => {
          const key = dmKey(c.userIds);
          const operand = dmOperand(c.userIds);
          return (
            <li key={key}>
              <button type="button" class={place.dm === operand ? 'active' : ''} onClick={() => go([{ operator: 'dm', operand }])}>
                <span class="dm-name">{c.userIds.map(userName).join(', ')}</span>
                <Count n={unreadByDm.value.get(key)} label="messages" />
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
