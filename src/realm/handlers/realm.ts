/**
 * `create_realm`: the first command of every realm; creates its system groups
 * (https://zulip.com/api/group-setting-values) and realm-level permission defaults.
 */
import { ok, fail, Errors } from '../../errors.js';
import { defaultRealmGroups, systemGroupData } from '../../domain/groups.js';
import type { CommandReplies } from '../commands.js';
import type { Handler } from '../decision.js';

export interface CreateRealm {
  type: 'create_realm';
  subdomain: string;
  name: string;
  description: string;
}

export const createRealm: Handler<CreateRealm, CommandReplies['create_realm']> = (state, cmd, ctx) => {
  if (state.created) return fail(Errors.badRequest('Organization already exists'));
  const systemGroups = systemGroupData(state.nextIds.group);
  return ok({
    records: [
      {
        type: 'realm_created',
        v: 1,
        subdomain: cmd.subdomain,
        name: cmd.name,
        description: cmd.description,
        dateCreated: Math.floor(ctx.now()),
        systemGroups,
        groups: defaultRealmGroups(systemGroups),
      },
    ],
    events: [],
    reply: {},
  });
};
