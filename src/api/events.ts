/**
 * Real-time events (https://zulip.com/api/real-time-events; Zulip's
 * zerver/views/events_register.py, zerver/tornado/views.py): `POST /register` creates an event
 * queue and returns the initial state; `GET /events` long-polls it; `DELETE /events` removes it.
 *
 * Consistency: the register state is read synchronously together with the realm's command
 * sequence number; the queue skips events of commands at or below it (their effects are in the
 * state), and the response waits until those commands are durable.
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';
import { Role } from '../domain/realm-state.js';
import type { EventQueueManager } from '../events/event-queues.js';
import { requestedIdleTimeout } from './idle-queue-timeout.js';
import { compileEventNarrow } from '../events/narrow-filter.js';
import { eventsJson } from '../events/event-json.js';
import { RawJson } from './raw-json.js';
import { buildRegisterState } from '../events/register-state.js';

const eventTypeList = Type.Union([Type.Array(Type.String()), Type.Null()]);

/** The event endpoints, bound to the server's queue manager. */
export function eventEndpoints(queues: EventQueueManager) {
  return {
    /**
     * `POST /register`: creates an event queue and returns the initial state (Zulip's
     * zerver/views/events_register.py `events_register_backend`).
     */
    register: defineEndpoint({
      auth: 'user',
      params: {
        event_types: P.json(eventTypeList),
        fetch_event_types: P.json(eventTypeList),
        narrow: P.json(Type.Array(Type.Unknown()), { default: [] }),
        all_public_streams: P.bool({ default: false }),
        include_subscribers: P.bool({ default: false }),
        client_capabilities: P.json(Type.Record(Type.String(), Type.Unknown()), { default: {} }),
        apply_markdown: P.bool({ default: false }),
        client_gravatar: P.bool({ default: true }),
        slim_presence: P.bool({ default: false }),
        queue_lifespan_secs: P.int({ default: 0 }),
        idle_queue_timeout: P.jsonOrString(),
      },
      handler: async ({ realm, user, params, uploads }) => {
        const me = user;
        if (params.all_public_streams && me.role === Role.guest) return Errors.userNotAuthorized();
        const narrow = compileEventNarrow(params.narrow);
        if (narrow instanceof Error) return narrow;
        const idleTimeoutSeconds = requestedIdleTimeout(params.idle_queue_timeout, params.queue_lifespan_secs);
        if (idleTimeoutSeconds instanceof Error) return idleTimeoutSeconds;
        const capabilities: Record<string, boolean> = {};
        for (const [k, v] of Object.entries(params.client_capabilities)) capabilities[k] = v === true;
        const eventTypes = params.event_types == null ? null : new Set(params.event_types);
        const fetchTypes = params.fetch_event_types === undefined ? params.event_types : params.fetch_event_types;
        // Read state and sequence in the same synchronous step (see the module comment).
        const commandSeq = realm.commandSeq;
        const initial = buildRegisterState(realm.state, me, {
          fetchEventTypes: fetchTypes == null ? null : new Set(fetchTypes),
          applyMarkdown: params.apply_markdown,
          clientGravatar: params.client_gravatar,
          slimPresence: params.slim_presence,
          includeSubscribers: params.include_subscribers,
          allPublicStreams: params.all_public_streams,
          narrow: params.narrow as never,
          clientCapabilities: capabilities,
          realmUrl: realm.url,
          ...(uploads !== null && {
            maxFileUploadSizeMib: uploads.maxFileUploadMib,
            uploadQuotaMib: uploads.quotaBytes === null ? null : Math.round(uploads.quotaBytes / (1024 * 1024)),
          }),
        });
        const queue = queues.register(
          realm.id,
          me.id,
          {
            eventTypes,
            applyMarkdown: params.apply_markdown,
            clientGravatar: params.client_gravatar,
            slimPresence: params.slim_presence,
            allPublicStreams: params.all_public_streams,
            narrow,
            clientCapabilities: capabilities,
            // `idle_queue_timeout` / `queue_lifespan_secs` (api/idle-queue-timeout.ts); undefined = the default.
            ...(idleTimeoutSeconds !== undefined && { idleTimeoutSeconds }),
          },
          commandSeq,
        );
        await realm.whenDurable();
        return { queue_id: queue.id, last_event_id: queue.lastEventId, idle_queue_timeout_secs: queues.idleTimeoutSeconds(queue), ...initial };
      },
    }),
    /** `GET /events`: long-polls an event queue (Zulip's zerver/tornado/views.py `get_events`). */
    getEvents: defineEndpoint({
      auth: 'user',
      rateLimit: false,
      params: {
        queue_id: P.string(),
        last_event_id: P.int(),
        dont_block: P.bool({ default: false }),
      },
      handler: async ({ realm, user, params, onAbort }) => {
        // Zulip's `get_events`: these two are plain BAD_REQUEST errors, not REQUEST_VARIABLE_MISSING.
        if (params.queue_id === undefined) return Errors.badRequest("Missing 'queue_id' argument");
        if (params.last_event_id === undefined) return Errors.badRequest("Missing 'last_event_id' argument");
        const queue = queues.get(params.queue_id, realm.id, user.id);
        if (queue === undefined) return Errors.badEventQueueId(params.queue_id);
        const events = await queues.poll(queue, params.last_event_id, params.dont_block, onAbort);
        if (events === null) return Errors.badEventQueueId(params.queue_id);
        return { events: new RawJson([eventsJson(events)]), queue_id: queue.id };
      },
    }),
    /**
     * `DELETE /events`: deletes an event queue (Zulip's zerver/tornado/views.py
     * `cleanup_event_queue`).
     */
    deleteQueue: defineEndpoint({
      auth: 'user',
      params: { queue_id: P.string({ required: true }) },
      handler: ({ realm, user, params }) => {
        const queue = queues.get(params.queue_id, realm.id, user.id);
        if (queue === undefined) return Errors.badEventQueueId(params.queue_id);
        queues.delete(queue);
        return {};
      },
    }),
  };
}
