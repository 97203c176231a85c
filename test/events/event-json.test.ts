/**
 * `eventJson` / `eventsJson` (src/events/event-json.ts): the same text as `JSON.stringify`, with a
 * message event's shared message object serialized once however many queues receive it.
 */
import t from 'tap';
import { eventJson, eventsJson } from '../../src/events/event-json.js';
import type { QueuedEvent } from '../../src/events/event-queue.js';

t.test('same text as JSON.stringify', async (t) => {
  const message = { id: 7, content: '<p>é 🐙 "quoted"</p>', reactions: [], avatar_url: null, topic_links: [{ text: '#1', url: 'https://x/1' }] };
  const events: QueuedEvent[] = [
    { id: 1, type: 'message', message, flags: ['read'], local_message_id: '12.01' },
    { id: 2, type: 'message', message, flags: [], gone: undefined },
    { id: 3, type: 'presence', user_id: 4, presence: { website: { status: 'active' } } },
    { id: 4, type: 'message', message: null },
    { id: 5, type: 'heartbeat' },
  ];
  for (const event of events) t.equal(eventJson(event), JSON.stringify(event), `event ${event.id}`);
  t.equal(eventsJson(events), JSON.stringify(events), 'the array');
  t.equal(eventsJson([]), '[]');
});

t.test('a shared message object is serialized once', async (t) => {
  let reads = 0;
  const message = {
    id: 8,
    get content() {
      reads++;
      return 'hello';
    },
  };
  const a = eventJson({ id: 1, type: 'message', message, flags: ['read'] });
  const b = eventJson({ id: 2, type: 'message', message, flags: [] });
  t.equal(reads, 1, 'two queues, one serialization');
  t.same(JSON.parse(a), { id: 1, type: 'message', message: { id: 8, content: 'hello' }, flags: ['read'] });
  t.same(JSON.parse(b).message, JSON.parse(a).message);
  eventJson({ id: 3, type: 'message', message: { ...message }, flags: [] });
  t.equal(reads, 2, 'another object is serialized on its own');
});
