/**
 * Which organization subdomains may be created, as Zulip decides (zerver/forms.py
 * `check_subdomain_available`, zerver/lib/name_restrictions.py `is_reserved_subdomain`): lowercase
 * letters, digits and `-`, not starting or ending with `-`, 3 to 40 characters
 * (`Realm.MAX_REALM_SUBDOMAIN_LENGTH`), not already used, and not a reserved name (or a reserved
 * name plus `s`) unless the operator explicitly allows reserved names. '' is the root domain.
 */

/** Zulip's `Realm.MAX_REALM_SUBDOMAIN_LENGTH`. */
export const MAX_SUBDOMAIN_LENGTH = 40;
/** Zulip's minimum subdomain length. */
export const MIN_SUBDOMAIN_LENGTH = 3;

/**
 * Reserved subdomains (name_restrictions.py `ZULIP_RESERVED_SUBDOMAINS` and
 * `GENERIC_RESERVED_SUBDOMAINS`): product, infrastructure and common service names.
 */
export const RESERVED_SUBDOMAINS: ReadonlySet<string> = new Set(
  (
    // Zulip terms, machines, website and competitor pages, platforms, free software, security, tech
    'stream channel topic thread installation organization your-org realm team subdomain activity octopus acme push ' +
    'zulipdev localhost staging prod production testing nagios nginx mg front-mail server client features integration ' +
    'bot blog history story stories testimonial compare for vs slack mattermost rocketchat irc twitter zephyr flowdock ' +
    'spark skype microsoft twist ryver matrix discord email usenet zulip tulip humbug plan9 electron linux mac windows ' +
    'cli ubuntu android ios contribute floss foss free opensource open code license intern outreachy gsoc externship ' +
    'auth authentication security engineering infrastructure tooling tools javascript python ' +
    // generic service names
    'about abuse account ad admanager admin admindashboard administrator adsense advice adword affiliate alpha ' +
    'anonymous api assets audio avatar badges beta billing biz board bookmark bugs buy cache calendar chat clients ' +
    'cname comment communities community contact contributor control coppa copyright cpanel css cssproxy customer ' +
    'customise customize dashboard data demo deploy deployment desktop dev devel developer development discussion ' +
    'diversity dmca docs donate download e-mail embed embedded example explore faq favorite favourites feed feedback ' +
    'files forum friend ftp general gettingstarted gift git global graphs guide hack hello help home hostmaster https ' +
    'icon im image img inbox index investors invite invoice ipad iphone jabber jars jobs join js kb knowledgebase ' +
    'launchpad legal livejournal lj login logs m mail main manage map media memories memory merchandise messages ' +
    'mobile my mystore networks new newsite onboarding official ogg online order paid panel partner partnerpage pay ' +
    'payment picture policy pop popular portal post postmaster press pricing principles privacy private profile public ' +
    'question random redirect register registration resolver root rss s sandbox school search secure servers service ' +
    'setting shop shortcuts signin signup sitemap sitenews sites sms smtp sorry ssl staff stage stars stat static ' +
    'statistics status store style support surveys svn syn syndicated system tag talk termsofservice test testers ' +
    'ticket tool tos trac translate update upgrade uploads use user username validation videos volunteer web webdisk ' +
    'webmail webmaster welcome whm whois wiki www www0 www8 www9 xml xmpp xoxo'
  ).split(' '),
);

/** Zulip's `is_reserved_subdomain`: a reserved name, or a reserved name followed by `s`. */
export function isReservedSubdomain(subdomain: string): boolean {
  return RESERVED_SUBDOMAINS.has(subdomain) || (subdomain.endsWith('s') && RESERVED_SUBDOMAINS.has(subdomain.slice(0, -1)));
}

/**
 * Checks a new organization's subdomain the way `check_subdomain_available` does and returns
 * Zulip's error text, or null when it may be created. `taken` says whether a realm already uses
 * it; `allowReserved` is the operator's override for reserved names.
 */
export function subdomainProblem(subdomain: string, taken: (s: string) => boolean, allowReserved = false): string | null {
  const unavailable = 'Subdomain unavailable. Please choose a different one.';
  if (subdomain === '') return taken('') ? unavailable : null;
  if (subdomain.startsWith('-') || subdomain.endsWith('-')) return "Subdomain cannot start or end with a '-'.";
  if (!/^[a-z0-9-]*$/.test(subdomain)) return "Subdomain can only have lowercase letters, numbers, and '-'s.";
  if (subdomain.length < MIN_SUBDOMAIN_LENGTH) return 'Subdomain needs to have length 3 or greater.';
  if (subdomain.length > MAX_SUBDOMAIN_LENGTH) return `Subdomain can be at most ${MAX_SUBDOMAIN_LENGTH} characters long.`;
  if (taken(subdomain)) return unavailable;
  if (isReservedSubdomain(subdomain) && !allowReserved) return unavailable;
  return null;
}
