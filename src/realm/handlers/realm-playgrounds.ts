/**
 * Code playgrounds (https://zulip.com/api/add-code-playground,
 * https://zulip.com/api/remove-code-playground; Zulip's zerver/views/realm_playgrounds.py
 * `add_realm_playground` / `delete_realm_playground`, zerver/actions/realm_playgrounds.py).
 *
 * Administrators only (`require_realm_admin`). Add: the fields are validated as Zulip's model
 * (`domain/realm-playgrounds.ts` `checkPlayground`, BAD_REQUEST with the first message); reply
 * `{id}`. Remove: an unknown id is "Invalid playground". Each change sends `realm_playgrounds`
 * with the whole list to every active user (Zulip's `notify_realm_playgrounds`).
 */
import { ok, fail, Errors } from '../../errors.js';
import { requireRealmAdmin } from '../../domain/access.js';
import { checkPlayground, evolvePlayground, playgroundsOf, playgroundsWire, type PlaygroundRecord } from '../../domain/realm-playgrounds.js';
import type { RealmState } from '../../domain/realm-state.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Handler } from '../decision.js';
import { activeUserIds } from './user-events.js';

/** `POST /realm/playgrounds`: strings already stripped by the endpoint. */
export interface AddPlayground {
  type: 'add_playground';
  actorId: number;
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

/** `DELETE /realm/playgrounds/{playground_id}`. */
export interface RemovePlayground {
  type: 'remove_playground';
  actorId: number;
  playgroundId: number;
}

export type PlaygroundCommand = AddPlayground | RemovePlayground;

/** Replies of the commands above. */
export interface PlaygroundReplies {
  add_playground: { id: number };
  remove_playground: Record<string, never>;
}

/** The `realm_playgrounds` event for the list after `record`. */
function listEvent(state: RealmState, record: PlaygroundRecord): RealmEvent {
  const after: RealmState = { ...state, playgrounds: structuredClone(playgroundsOf(state)) };
  evolvePlayground(after, record);
  return { userIds: activeUserIds(state), payload: { type: 'realm_playgrounds', realm_playgrounds: playgroundsWire(after) } };
}

export const addPlayground: Handler<AddPlayground, PlaygroundReplies['add_playground']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  const invalid = checkPlayground(state, cmd.name, cmd.pygmentsLanguage, cmd.urlTemplate);
  if (invalid !== null) return fail(Errors.badRequest(invalid));
  const id = playgroundsOf(state).nextId;
  const record: PlaygroundRecord = {
    type: 'realm_playground_added', v: 1,
    playground: { id, name: cmd.name, pygmentsLanguage: cmd.pygmentsLanguage, urlTemplate: cmd.urlTemplate },
  };
  return ok({ records: [record], events: [listEvent(state, record)], reply: { id } });
};

export const removePlayground: Handler<RemovePlayground, PlaygroundReplies['remove_playground']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  if (!playgroundsOf(state).items.some((p) => p.id === cmd.playgroundId)) return fail(Errors.badRequest('Invalid playground'));
  const record: PlaygroundRecord = { type: 'realm_playground_removed', v: 1, id: cmd.playgroundId };
  return ok({ records: [record], events: [listEvent(state, record)], reply: {} });
};
