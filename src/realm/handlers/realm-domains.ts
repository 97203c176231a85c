/**
 * The organization's email domains (https://zulip.com/api/get-events `realm_domains`; Zulip's
 * zerver/views/realm_domains.py `create_realm_domain`, `patch_realm_domain`, `delete_realm_domain`,
 * zerver/actions/realm_domains.py).
 *
 * Administrators only (`require_realm_admin`). Add: the domain stripped and lower-cased, checked by
 * `validate_domain` ("Invalid domain: <reason>"), not already present ("The domain <d> is already a
 * part of your organization."); reply `{new_domain: [id, domain]}` (parley's id is the domain's
 * 1-based position when added). Change / remove: an unknown domain is "No entry found for domain
 * <d>.". Events to every active user: `realm_domains` `add` / `change` / `remove`; removing the last
 * domain while `emails_restricted_to_domains` is on also sends the realm `update` turning it off.
 */
import { ok, fail, Errors } from '../../errors.js';
import { requireRealmAdmin } from '../../domain/access.js';
import { domainError, realmDomainsOf, type RealmDomainRecord } from '../../domain/realm-domains.js';
import type { RealmEvent } from '../../events/realm-event.js';
import type { Handler } from '../decision.js';
import { activeUserIds } from './user-events.js';

/** `POST /realm/domains`: `domain` as sent (normalized here). */
export interface AddRealmDomain {
  type: 'add_realm_domain';
  actorId: number;
  domain: string;
  allowSubdomains: boolean;
}

/** `PATCH /realm/domains/{domain}`. */
export interface ChangeRealmDomain {
  type: 'change_realm_domain';
  actorId: number;
  domain: string;
  allowSubdomains: boolean;
}

/** `DELETE /realm/domains/{domain}`. */
export interface RemoveRealmDomain {
  type: 'remove_realm_domain';
  actorId: number;
  domain: string;
}

export type RealmDomainCommand = AddRealmDomain | ChangeRealmDomain | RemoveRealmDomain;

/** Replies of the commands above. */
export interface RealmDomainReplies {
  add_realm_domain: { id: number; domain: string };
  change_realm_domain: Record<string, never>;
  remove_realm_domain: Record<string, never>;
}

const notFound = (domain: string) => Errors.badRequest(`No entry found for domain ${domain}.`);

export const addRealmDomain: Handler<AddRealmDomain, RealmDomainReplies['add_realm_domain']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  const domain = cmd.domain.trim().toLowerCase();
  const invalid = domainError(domain);
  if (invalid !== null) return fail(Errors.badRequest(`Invalid domain: ${invalid}`));
  const current = realmDomainsOf(state);
  if (current.some((d) => d.domain === domain)) return fail(Errors.badRequest(`The domain ${domain} is already a part of your organization.`));
  const record: RealmDomainRecord = { type: 'realm_domain_added', v: 1, domain, allowSubdomains: cmd.allowSubdomains };
  const event: RealmEvent = {
    userIds: activeUserIds(state),
    payload: { type: 'realm_domains', op: 'add', realm_domain: { domain, allow_subdomains: cmd.allowSubdomains } },
  };
  return ok({ records: [record], events: [event], reply: { id: current.length + 1, domain } });
};

export const changeRealmDomain: Handler<ChangeRealmDomain, RealmDomainReplies['change_realm_domain']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  const existing = realmDomainsOf(state).find((d) => d.domain === cmd.domain);
  if (existing === undefined) return fail(notFound(cmd.domain));
  if (existing.allowSubdomains === cmd.allowSubdomains) return ok({ records: [], events: [], reply: {} });
  const record: RealmDomainRecord = { type: 'realm_domain_changed', v: 1, domain: cmd.domain, allowSubdomains: cmd.allowSubdomains };
  const event: RealmEvent = {
    userIds: activeUserIds(state),
    payload: { type: 'realm_domains', op: 'change', realm_domain: { domain: cmd.domain, allow_subdomains: cmd.allowSubdomains } },
  };
  return ok({ records: [record], events: [event], reply: {} });
};

export const removeRealmDomain: Handler<RemoveRealmDomain, RealmDomainReplies['remove_realm_domain']> = (state, cmd) => {
  const admin = requireRealmAdmin(state.users.get(cmd.actorId));
  if (!admin.ok) return admin;
  const current = realmDomainsOf(state);
  if (!current.some((d) => d.domain === cmd.domain)) return fail(notFound(cmd.domain));
  const userIds = activeUserIds(state);
  const events: RealmEvent[] = [{ userIds, payload: { type: 'realm_domains', op: 'remove', domain: cmd.domain } }];
  if (current.length === 1 && state.settings.emailsRestrictedToDomains === true) {
    events.push({ userIds, payload: { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false } });
  }
  return ok({ records: [{ type: 'realm_domain_removed', v: 1, domain: cmd.domain }], events, reply: {} });
};
