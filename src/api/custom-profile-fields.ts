/**
 * Custom profile field endpoints (https://zulip.com/api/create-custom-profile-field;
 * https://zulip.com/api/get-custom-profile-fields):
 * - `GET /realm/profile_fields` (any user): `{custom_fields: [...]}` sorted by `order`;
 * - `POST /realm/profile_fields` (administrators): `name` (stripped), `hint`, `field_type`,
 *   `field_data` (JSON dict of strings or dicts of strings), `display_in_profile_summary`,
 *   `required`, `editable_by_user` → `{id}`;
 * - `PATCH /realm/profile_fields/{field_id}` (administrators): the same parameters except
 *   `field_type`, with the same defaults, so omitted ones are RESET (full replacement);
 * - `DELETE /realm/profile_fields/{field_id}`, `PATCH /realm/profile_fields` (`order`: reorder);
 * - `PATCH /users/me/profile_data` (`data`: `[{id, value}]`) and `DELETE /users/me/profile_data`
 *   (`data`: field ids): a human user's own values.
 * Rules and events live in `realm/handlers/custom-profile-fields.ts`.
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { fieldsToWire } from '../domain/custom-profile-fields.js';
import { checkFieldDataShape } from '../domain/custom-profile-field-checks.js';
import type { Command } from '../realm/commands.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** Runs a command and answers `{}` (or `extra(reply)`), or the handler's error. */

/** Parameters shared by create and update, with Zulip's defaults. */
const definitionParams = {
  name: P.string({ default: '' }),
  hint: P.string({ default: '' }),
  field_data: P.json(Type.Unknown(), { default: {} }),
  display_in_profile_summary: P.bool({ default: false }),
  required: P.bool({ default: false }),
  editable_by_user: P.bool({ default: true }),
};

type DefinitionParams = { name: string; hint: string; field_data: unknown; display_in_profile_summary: boolean; required: boolean; editable_by_user: boolean };

/** The command fields of a definition, or the `field_data` shape error. */
function definition(params: DefinitionParams) {
  const shape = checkFieldDataShape(params.field_data);
  if (shape !== null) return Errors.badRequest(shape);
  return {
    name: params.name.trim(),
    hint: params.hint,
    fieldData: params.field_data as Record<string, unknown>,
    displayInProfileSummary: params.display_in_profile_summary,
    required: params.required,
    editableByUser: params.editable_by_user,
  };
}

export const customProfileFieldEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/realm/profile_fields',
    auth: 'user',
    params: {},
    handler: ({ realm }) => ({ custom_fields: fieldsToWire(realm!.state) }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/realm/profile_fields',
    auth: 'user',
    params: { ...definitionParams, field_type: P.int({ required: true }) },
    handler: async ({ realm, user, params }) => {
      const def = definition(params);
      if (def instanceof Error) return def;
      return runCommand(
        realm!,
        { type: 'create_custom_profile_field', actorId: user!.id, fieldType: params.field_type, ...def },
        (reply) => ({ id: reply.id }),
      );
    },
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/realm/profile_fields/{field_id}',
    auth: 'user',
    params: definitionParams,
    handler: async ({ realm, user, params, path }) => {
      const def = definition(params);
      if (def instanceof Error) return def;
      return runCommand(realm!, { type: 'update_custom_profile_field', actorId: user!.id, fieldId: path.field_id!, ...def });
    },
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/realm/profile_fields/{field_id}',
    auth: 'user',
    params: {},
    handler: ({ realm, user, path }) =>
      runCommand(realm!, { type: 'delete_custom_profile_field', actorId: user!.id, fieldId: path.field_id! }),
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/realm/profile_fields',
    auth: 'user',
    params: { order: P.json(Type.Array(Type.Integer()), { required: true }) },
    handler: ({ realm, user, params }) =>
      runCommand(realm!, { type: 'reorder_custom_profile_fields', actorId: user!.id, order: params.order }),
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/users/me/profile_data',
    auth: 'user',
    params: {
      data: P.json(
        Type.Array(
          Type.Object(
            { id: Type.Integer(), value: Type.Union([Type.String(), Type.Array(Type.Unknown())]) },
            { additionalProperties: false },
          ),
        ),
        { required: true },
      ),
    },
    handler: ({ realm, user, params }) =>
      runCommand(realm!, { type: 'set_custom_profile_values', actorId: user!.id, data: params.data }),
  }),
  defineEndpoint({
    method: 'DELETE',
    path: '/users/me/profile_data',
    auth: 'user',
    params: { data: P.json(Type.Array(Type.Integer()), { required: true }) },
    handler: ({ realm, user, params }) =>
      runCommand(realm!, { type: 'remove_custom_profile_values', actorId: user!.id, fieldIds: params.data }),
  }),
];
