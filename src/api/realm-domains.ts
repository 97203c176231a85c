/**
 * The organization's email domains (https://zulip.com/help/restrict-account-creation; Zulip's
 * zerver/views/realm_domains.py):
 * - `GET /realm/domains` → `{domains: [{domain, allow_subdomains}]}` (every user, as Zulip's
 *   `list_realm_domains`);
 * - `POST /realm/domains` (`domain`, `allow_subdomains` JSON bool) → `{new_domain: [id, domain]}`;
 * - `PATCH /realm/domains/{domain}` (`allow_subdomains`); `DELETE /realm/domains/{domain}`.
 * Rules and events: `realm/handlers/realm-domains.ts`.
 */
import { requireRealmAdmin } from '../domain/access.js';
import { realmDomainsWire } from '../domain/realm-domains.js';
import { runCommand } from './run-command.js';
import { defineEndpoint } from './define-endpoint.js';
import { P } from './params.js';

/** `GET /realm/domains`. */
export const listRealmDomains = defineEndpoint({
  auth: 'user',
  params: {},
  handler: ({ realm }) => ({ domains: realmDomainsWire(realm.state) }),
});

/** `POST /realm/domains`. */
export const addRealmDomain = defineEndpoint({
  auth: 'user',
  params: { domain: P.string({ required: true }), allow_subdomains: P.bool({ required: true }) },
  handler: async ({ realm, user, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(
      realm,
      { type: 'add_realm_domain', actorId: user.id, domain: params.domain, allowSubdomains: params.allow_subdomains },
      (reply) => ({ new_domain: [reply.id, reply.domain] }),
    );
  },
});

/** `PATCH /realm/domains/{domain}`. */
export const changeRealmDomain = defineEndpoint({
  auth: 'user',
  pathParams: { domain: 'string' },
  params: { allow_subdomains: P.bool({ required: true }) },
  handler: async ({ realm, user, path, params }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(realm, { type: 'change_realm_domain', actorId: user.id, domain: path.domain, allowSubdomains: params.allow_subdomains });
  },
});

/** `DELETE /realm/domains/{domain}`. */
export const removeRealmDomain = defineEndpoint({
  auth: 'user',
  pathParams: { domain: 'string' },
  params: {},
  handler: async ({ realm, user, path }) => {
    const admin = requireRealmAdmin(user);
    if (!admin.ok) return admin.error;
    return runCommand(realm, { type: 'remove_realm_domain', actorId: user.id, domain: path.domain });
  },
});
