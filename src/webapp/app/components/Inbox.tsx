/**
 * The Inbox view (Zulip's `web/src/inbox_ui.ts`, simplified): every conversation with unread
 * messages, channel topics and direct messages, with its count; a click opens it.
 */
import { dmKey, panel, streamById, topicKey, unread, unreadByDm, unreadByTopic, userName } from '../state.js';
import { dmOperand, go } from './Sidebar.js';

export function Inbox() {
  const topics = new Map<string, { streamId: number; topic: string }>();
  const dms = new Map<string, number[]>();
  for (const place of unread.value.values()) {
    if (place.kind === 'stream') topics.set(topicKey(place.streamId, place.topic), { streamId: place.streamId, topic: place.topic });
    else dms.set(place.key, place.key.split(',').map(Number));
  }
  return (
    <section class="inbox" aria-label="Inbox">
      <h2>Inbox</h2>
      {topics.size === 0 && dms.size === 0 && <p>No unread messages.</p>}
      <ul>
        {[...dms.entries()].map(([key, ids]) => (
          <li key={key}>
            <button type="button" onClick={() => go([{ operator: 'dm', operand: dmOperand(ids) }])}>
              {ids.map(userName).join(', ')} <span class="unread-count">{unreadByDm.value.get(dmKey(ids))}</span>
            </button>
          </li>
        ))}
        {[...topics.entries()].map(([key, t]) => {
          const name = streamById(t.streamId)?.name ?? '?';
          return (
            <li key={key}>
              <button type="button" onClick={() => go([{ operator: 'channel', operand: name }, { operator: 'topic', operand: t.topic }])}>
                #{name} › {t.topic} <span class="unread-count">{unreadByTopic.value.get(key)}</span>
              </button>
            </li>
          );
        })}
      </ul>
      <button type="button" onClick={() => (panel.value = 'none')}>
        Close
      </button>
    </section>
  );
}
