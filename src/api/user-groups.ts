/**
 * User group endpoints (https://zulip.com/api/group-setting-values; Zulip's
 * `zerver/views/user_groups.py`, OpenAPI `/user_groups*`):
 * - `GET /user_groups` (`include_deactivated_groups`): `{user_groups: [...]}`, the same dicts as
 *   `realm_user_groups` of `/register` (system groups with computed members);
 * - `POST /user_groups/create`: `name`, `description`, `members` (JSON ids), `subgroups`, and the
 *   group's settings (`can_manage_group`, `can_mention_group`, … as group-setting values) →
 *   `{group_id}`;
 * - `POST /user_groups/{user_group_id}/members`: `add` / `delete` (JSON user ids), also
 *   `add_subgroups` / `delete_subgroups`;
 * - `POST /user_groups/{user_group_id}/subgroups`: `add` / `delete` (JSON group ids);
 * - `PATCH /user_groups/{user_group_id}`: `name`, `description`, `deactivated` (JSON; `false`
 *   reactivates a deactivated group);
 * - `POST /user_groups/{user_group_id}/deactivate` (FL 290; errors incl. FL 298
 *   `CANNOT_DEACTIVATE_GROUP_IN_USE` with `objections`).
 */
import Type from 'typebox';
import { Errors } from '../errors.js';
import { realmUserGroups } from '../events/register/user-groups.js';
import type { GroupSettingValue } from '../domain/realm-state.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

const IntList = Type.Array(Type.Integer());
const SettingValue = Type.Union([
  Type.Integer(),
  Type.Object({ direct_members: IntList, direct_subgroups: IntList }, { additionalProperties: false }),
]);

const NOTHING_TO_DO = 'Nothing to do. Specify at least one of "add" or "delete".';

export const userGroupEndpoints = [
  defineEndpoint({
    method: 'GET',
    path: '/user_groups',
    auth: 'user',
    params: { include_deactivated_groups: P.bool({ default: false }) },
    handler: ({ realm, params }) => ({ user_groups: realmUserGroups(realm!.state, params.include_deactivated_groups) }),
  }),
  defineEndpoint({
    method: 'POST',
    path: '/user_groups/create',
    auth: 'user',
    params: {
      name: P.string({ required: true }),
      description: P.string({ required: true }),
      members: P.json(IntList, { required: true }),
      subgroups: P.json(IntList, { default: [] }),
      can_add_members_group: P.json(SettingValue),
      can_join_group: P.json(SettingValue),
      can_leave_group: P.json(SettingValue),
      can_manage_group: P.json(SettingValue),
      can_mention_group: P.json(SettingValue),
      can_remove_members_group: P.json(SettingValue),
    },
    handler: async ({ realm, user, params }) => {
      const settings: Record<string, GroupSettingValue> = {};
      for (const name of [
        'can_add_members_group', 'can_join_group', 'can_leave_group',
        'can_manage_group', 'can_mention_group', 'can_remove_members_group',
      ] as const) {
        const value = params[name];
        if (value !== undefined) settings[name] = value;
      }
      return runCommand(realm!, {
        type: 'create_user_group',
        actorId: user!.id,
        name: params.name,
        description: params.description,
        members: params.members,
        subgroups: params.subgroups,
        settings,
      }, (reply) => ({ group_id: reply.groupId }));
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/user_groups/{user_group_id}/members',
    auth: 'user',
    params: {
      add: P.json(IntList, { default: [] }),
      delete: P.json(IntList, { default: [] }),
      add_subgroups: P.json(IntList, { default: [] }),
      delete_subgroups: P.json(IntList, { default: [] }),
    },
    handler: async ({ realm, user, path, params }) => {
      if (params.add.length + params.delete.length + params.add_subgroups.length + params.delete_subgroups.length === 0) {
        return Errors.badRequest(NOTHING_TO_DO);
      }
      return runCommand(realm!, {
        type: 'update_user_group_membership',
        actorId: user!.id,
        groupId: path.user_group_id!,
        addMembers: params.add,
        removeMembers: params.delete,
        addSubgroups: params.add_subgroups,
        removeSubgroups: params.delete_subgroups,
      });
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/user_groups/{user_group_id}/subgroups',
    auth: 'user',
    params: {
      add: P.json(IntList, { default: [] }),
      delete: P.json(IntList, { default: [] }),
    },
    handler: async ({ realm, user, path, params }) => {
      if (params.add.length + params.delete.length === 0) return Errors.badRequest(NOTHING_TO_DO);
      return runCommand(realm!, {
        type: 'update_user_group_membership',
        actorId: user!.id,
        groupId: path.user_group_id!,
        addMembers: [],
        removeMembers: [],
        addSubgroups: params.add,
        removeSubgroups: params.delete,
      });
    },
  }),
  defineEndpoint({
    method: 'PATCH',
    path: '/user_groups/{user_group_id}',
    auth: 'user',
    params: { name: P.string(), description: P.string(), deactivated: P.bool() },
    handler: async ({ realm, user, path, params }) => {
      if (params.name === undefined && params.description === undefined && params.deactivated === undefined) {
        return Errors.badRequest('No new data supplied');
      }
      return runCommand(realm!, {
        type: 'update_user_group',
        actorId: user!.id,
        groupId: path.user_group_id!,
        ...(params.name !== undefined && { name: params.name }),
        ...(params.description !== undefined && { description: params.description }),
        ...(params.deactivated !== undefined && { deactivated: params.deactivated }),
      });
    },
  }),
  defineEndpoint({
    method: 'POST',
    path: '/user_groups/{user_group_id}/deactivate',
    auth: 'user',
    params: {},
    handler: async ({ realm, user, path }) =>
      runCommand(realm!, { type: 'deactivate_user_group', actorId: user!.id, groupId: path.user_group_id! }),
  }),
];
