/**
 * Event payloads are typed by their schemas (`RealmEvent.payload` is the union of the event
 * schemas' `Static<>` types, src/events/schemas.ts): a handler that emits a misspelled field, a
 * field of the wrong type or a missing required field does not compile. Each `@ts-expect-error`
 * below is checked by `npm run typecheck` (tsc over test/): if the types stopped refusing the
 * payload, the directive itself would be the error. At run time the same payloads are checked
 * against the schemas, so the static and the run-time view agree on what is wrong.
 */
import t from 'tap';
import { checkEvent } from '../../src/events/schemas.js';
import type { RealmEvent, RealmEventPayload } from '../../src/events/realm-event.js';
import { streamToWire } from '../../src/events/wire/streams.js';
import { smallRealm } from '../support/realm-fixture.js';

/** The payload as `GET /events` delivers it (with a queue id). */
const delivered = (payload: RealmEventPayload) => ({ ...payload, id: 0 });

t.test('wrong payloads fail tsc and the schema check', async (t) => {
  const sender = { user_id: 1, email: 'user1@example.com' };
  const wrong: RealmEventPayload[] = [
    // @ts-expect-error misspelled field (`recipient` for `recipients`)
    { type: 'typing', op: 'start', message_type: 'direct', sender, recipient: [sender] },
    // @ts-expect-error wrong value type (`op` is start/stop)
    { type: 'typing', op: 'begin', message_type: 'direct', sender, recipients: [sender] },
    // @ts-expect-error missing required field (`stream_id` of a channel deletion)
    { type: 'delete_message', message_ids: [1], message_type: 'stream', topic: 'x' },
    // @ts-expect-error visibility policies are 0-3
    { type: 'user_topic', stream_id: 1, topic_name: 'x', last_updated: 1, visibility_policy: 7 },
    // @ts-expect-error reaction types are Zulip's three
    { type: 'reaction', op: 'add', user_id: 1, user: { user_id: 1, email: 'a@b', full_name: 'A' }, message_id: 1, emoji_name: 'x', emoji_code: '1f600', reaction_type: 'emoji' },
  ];
  for (const payload of wrong) t.not(checkEvent(delivered(payload)).length, 0, `${payload.type} is refused by its schema`);
});

t.test('serializer output is the schema type: a stream object in a stream event', async (t) => {
  const { state, streams } = smallRealm();
  const wire = streamToWire(state, state.streams.get(streams.general)!);
  const event: RealmEvent = { userIds: [1], payload: { type: 'stream', op: 'create', streams: [wire] } };
  t.same(checkEvent(delivered(event.payload)), [], 'the serialized stream passes its schema');
  // @ts-expect-error a stream object has no `stream_name` (the key is `name`)
  const renamed: RealmEventPayload = { type: 'stream', op: 'create', streams: [{ ...wire, stream_name: 'general' }] };
  t.not(checkEvent(delivered(renamed)).length, 0);
});
