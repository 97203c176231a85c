/**
 * The organization's email domains (https://zulip.com/help/restrict-account-creation; Zulip's
 * zerver/models/realms.py `RealmDomain`, `email_allowed_for_realm`, zerver/lib/domains.py
 * `validate_domain`, zerver/actions/realm_domains.py): with the realm's
 * `emails_restricted_to_domains` on, new accounts need an address in one of these domains (or a
 * subdomain of one whose `allow_subdomains` is set).
 *
 * State: `RealmState.realmDomains` (absent until the first domain), in the order added. Records
 * `realm_domain_added` / `realm_domain_changed` / `realm_domain_removed` (v1); removing the last
 * domain also turns `emails_restricted_to_domains` off (a `realm_settings_changed` beside it).
 */
import type { RealmState } from './realm-state.js';

/** One allowed domain (lower case). */
export interface RealmDomain {
  domain: string;
  allowSubdomains: boolean;
}

/** `realm_domain_added` v1. */
export interface RealmDomainAdded {
  type: 'realm_domain_added';
  v: 1;
  domain: string;
  allowSubdomains: boolean;
}

/** `realm_domain_changed` v1: the domain's `allow_subdomains` is now `allowSubdomains`. */
export interface RealmDomainChanged {
  type: 'realm_domain_changed';
  v: 1;
  domain: string;
  allowSubdomains: boolean;
}

/** `realm_domain_removed` v1. */
export interface RealmDomainRemoved {
  type: 'realm_domain_removed';
  v: 1;
  domain: string;
}

export type RealmDomainRecord = RealmDomainAdded | RealmDomainChanged | RealmDomainRemoved;

/** The realm's domains (empty when none was ever added). */
export function realmDomainsOf(state: RealmState): readonly RealmDomain[] {
  return state.realmDomains ?? [];
}

/** `realm_domains` of `/register` and `GET /realm/domains`: `{domain, allow_subdomains}` in the order added. */
export function realmDomainsWire(state: RealmState): Array<{ domain: string; allow_subdomains: boolean }> {
  return realmDomainsOf(state).map((d) => ({ domain: d.domain, allow_subdomains: d.allowSubdomains }));
}

/**
 * Zulip's `validate_domain` for an already stripped, lower-cased `domain`: the error message (as
 * Zulip words it) or null.
 */
export function domainError(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > 255) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.')) return 'Domain cannot start or end with a dot (.)';
  for (const label of domain.split('.')) {
    if (label === '') return "Consecutive '.' are not allowed.";
    if (label.startsWith('-') || label.endsWith('-')) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(label)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

/**
 * Zulip's `email_allowed_for_realm` (its domain half): true when the realm does not restrict
 * addresses, or the address's domain (after the last `@`, case-insensitive) is one of the realm's
 * domains or a subdomain of one that allows subdomains.
 */
export function emailAllowedForRealm(state: RealmState, email: string): boolean {
  if (state.settings.emailsRestrictedToDomains !== true) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return realmDomainsOf(state).some((d) => domain === d.domain || (d.allowSubdomains && domain.endsWith(`.${d.domain}`)));
}

/** `evolve` of the realm-domain records; removing the last one lifts the restriction as Zulip does. */
export function evolveRealmDomain(state: RealmState, r: RealmDomainRecord): void {
  const current = realmDomainsOf(state);
  switch (r.type) {
    case 'realm_domain_added':
      state.realmDomains = [...current, { domain: r.domain, allowSubdomains: r.allowSubdomains }];
      return;
    case 'realm_domain_changed':
      state.realmDomains = current.map((d) => (d.domain === r.domain ? { ...d, allowSubdomains: r.allowSubdomains } : d));
      return;
    case 'realm_domain_removed':
      state.realmDomains = current.filter((d) => d.domain !== r.domain);
      if (state.realmDomains.length === 0) state.settings.emailsRestrictedToDomains = false;
  }
}
