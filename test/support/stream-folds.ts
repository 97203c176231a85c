/**
 * Client-side folds of `stream` events (create / update / delete) into a register state, as
 * Zulip's `apply_event` does; used by `verify-action.ts`. Lists stay sorted by name.
 */
type Json = Record<string, any>;

const LISTS = ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'] as const;
const byName = (a: Json, b: Json) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Folds one `stream` event. */
export function applyStreamEvent(state: Json, event: Json): void {
  switch (event.op) {
    case 'create': {
      for (const stream of event.streams as Json[]) {
        if (Array.isArray(state.streams) && !state.streams.some((s: Json) => s.stream_id === stream.stream_id)) {
          state.streams.push(structuredClone(stream));
          state.streams.sort(byName);
        }
        const subscribed = (state.subscriptions as Json[] | undefined)?.some((s) => s.stream_id === stream.stream_id);
        if (Array.isArray(state.never_subscribed) && !subscribed) {
          state.never_subscribed.push(structuredClone(stream));
          state.never_subscribed.sort(byName);
        }
      }
      return;
    }
    case 'delete': {
      const ids = new Set((event.streams as Json[]).map((s) => s.stream_id as number));
      for (const key of LISTS) if (Array.isArray(state[key])) state[key] = state[key].filter((s: Json) => !ids.has(s.stream_id));
      if (Array.isArray(state.realm_default_streams)) state.realm_default_streams = state.realm_default_streams.filter((id: number) => !ids.has(id));
      return;
    }
    case 'update': {
      if (event.property === 'is_default_stream' && Array.isArray(state.realm_default_streams)) {
        const list: number[] = state.realm_default_streams.filter((id: number) => id !== event.stream_id);
        if (event.value === true) list.push(event.stream_id);
        state.realm_default_streams = list.sort((a, b) => a - b);
      }
      for (const key of LISTS) {
        const list = state[key] as Json[] | undefined;
        const stream = list?.find((s) => s.stream_id === event.stream_id);
        if (stream === undefined) continue;
        switch (event.property) {
          case 'is_default_stream':
            break;
          case 'description':
            stream.description = event.value;
            stream.rendered_description = event.rendered_description;
            break;
          case 'invite_only':
            stream.invite_only = event.value;
            stream.history_public_to_subscribers = event.history_public_to_subscribers;
            stream.is_web_public = event.is_web_public;
            break;
          default:
            stream[event.property] = event.value;
        }
        if (event.property === 'name') list!.sort(byName);
      }
      return;
    }
    default:
      throw new Error(`applyStreamEvent: unknown op ${JSON.stringify(event.op)}`);
  }
}
