/**
 * Code playgrounds (https://zulip.com/api/add-code-playground,
 * https://zulip.com/api/remove-code-playground; Zulip's zerver/views/realm_playgrounds.py):
 * `POST /realm/playgrounds` (`name`, `pygments_language`, `url_template`, all required; reply
 * `{id}`) and `DELETE /realm/playgrounds/{playground_id}`. The list itself is in `POST /register`
 * (`realm_playgrounds`). Rules and events live in `realm/handlers/realm-playgrounds.ts`.
 */
import { requireRealmAdmin } from '../domain/access.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `POST /realm/playgrounds`. */
export const addPlayground = defineEndpoint({
  auth: 'user',
  params: { name: P.string({ required: true }), pygments_language: P.string({ required: true }), url_template: P.string({ required: true }) },
  handler: async ({ realm, user, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(
      realm,
      { type: 'add_playground', actorId: user.id, name: params.name, pygmentsLanguage: params.pygments_language, urlTemplate: params.url_template },
      (reply) => ({ id: reply.id }),
    );
  },
});

/** `DELETE /realm/playgrounds/{playground_id}`. */
export const removePlayground = defineEndpoint({
  auth: 'user',
  pathParams: { playground_id: 'int' },
  params: {},
  handler: async ({ realm, user, path }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(realm, { type: 'remove_playground', actorId: user.id, playgroundId: path.playground_id });
  },
});
