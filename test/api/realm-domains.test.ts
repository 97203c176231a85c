/**
 * The organization's email domains (Zulip's zerver/views/realm_domains.py): administrators add,
 * change and remove them with `realm_domains` events; with `emails_restricted_to_domains` on,
 * `POST /users` refuses other addresses; removing the last domain lifts the restriction; errors
 * leave the state unchanged; the domains survive a snapshot.
 */
import t from 'tap';
import { startTestServer, type Caller } from '../support/test-server.js';
import { verifyAction } from '../support/verify-action.js';
import { fingerprint, rejects, run, smallRealm } from '../support/realm-fixture.js';
import { fromSnapshot, toSnapshot } from '../../src/domain/realm-snapshot.js';
import { domainError, emailAllowedForRealm } from '../../src/domain/realm-domains.js';

const bad = (msg: string) => ({ result: 'error', msg, code: 'BAD_REQUEST' });
const domains = async (c: Caller) => (await c.call('GET', '/realm/domains')).body.domains;

t.test('add, change, remove with events; GET and /register agree', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');

  const added = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => iago.call('POST', '/realm/domains', { domain: '  Example.COM ', allow_subdomains: false }),
  });
  t.same(added.actionResult.body.new_domain, [1, 'example.com'], 'stripped and lower-cased');
  t.same(added.events[0], { type: 'realm_domains', op: 'add', realm_domain: { domain: 'example.com', allow_subdomains: false }, id: added.events[0].id });

  const changed = await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => iago.call('PATCH', '/realm/domains/example.com', { allow_subdomains: true }),
  });
  t.match(changed.events[0], { type: 'realm_domains', op: 'change', realm_domain: { domain: 'example.com', allow_subdomains: true } });
  t.same(await domains(hamlet), [{ domain: 'example.com', allow_subdomains: true }], 'every user may list them');
  t.same((await hamlet.call('POST', '/register', { fetch_event_types: ['realm_domains'] })).body.realm_domains, await domains(hamlet));

  await verifyAction(t, s, hamlet, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => iago.call('DELETE', '/realm/domains/example.com'),
  });
  t.same(await domains(hamlet), []);
});

t.test('restriction: POST /users refuses other domains; the last domain removed lifts it', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const desdemona = await s.as('desdemona@zulip.com');
  t.equal((await iago.call('POST', '/realm/domains', { domain: 'example.com', allow_subdomains: true })).status, 200);
  const restricted = await verifyAction(t, s, desdemona, {
    numEvents: 1,
    stateChangeExpected: true,
    action: () => iago.call('PATCH', '/realm', { emails_restricted_to_domains: true }),
  });
  t.match(restricted.events[0], { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: true });

  const account = (email: string) => ({ email, password: 'a-long-enough-password-1', full_name: 'New Person' });
  t.same((await desdemona.call('POST', '/users', account('someone@elsewhere.org'))).body, bad("Email 'someone@elsewhere.org' not allowed in this organization"));
  t.equal((await desdemona.call('POST', '/users', account('someone@example.com'))).status, 200);
  t.equal((await desdemona.call('POST', '/users', account('other@team.example.com'))).status, 200, 'a subdomain when allowed');

  const lifted = await verifyAction(t, s, desdemona, {
    numEvents: 2,
    stateChangeExpected: true,
    action: () => iago.call('DELETE', '/realm/domains/example.com'),
  });
  t.match(lifted.events[1], { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false });
  t.equal((await desdemona.call('POST', '/users', account('someone@elsewhere.org'))).status, 200, 'no restriction without domains');
});

t.test('errors as Zulip, nothing changed', async (t) => {
  const s = await startTestServer(t);
  const iago = await s.as('iago@zulip.com');
  const hamlet = await s.as('hamlet@zulip.com');
  t.equal((await iago.call('POST', '/realm/domains', { domain: 'example.com', allow_subdomains: false })).status, 200);
  const before = await domains(hamlet);
  t.same((await hamlet.call('POST', '/realm/domains', { domain: 'x.org', allow_subdomains: false })).body,
    { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.same((await hamlet.call('DELETE', '/realm/domains/example.com')).body,
    { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.same((await iago.call('POST', '/realm/domains', { domain: 'EXAMPLE.com', allow_subdomains: true })).body,
    bad('The domain example.com is already a part of your organization.'));
  t.same((await iago.call('POST', '/realm/domains', { domain: 'localhost', allow_subdomains: false })).body,
    bad('Invalid domain: Domain must have at least one dot (.)'));
  t.same((await iago.call('PATCH', '/realm/domains/nowhere.org', { allow_subdomains: true })).body, bad('No entry found for domain nowhere.org.'));
  t.same((await iago.call('DELETE', '/realm/domains/nowhere.org')).body, bad('No entry found for domain nowhere.org.'));
  t.equal((await iago.call('POST', '/realm/domains', { domain: 'y.org' })).status, 400, 'allow_subdomains is required');
  t.same(await domains(hamlet), before);
});

t.test('domain rules, matching, replay and snapshot', async (t) => {
  t.equal(domainError(''), "Domain can't be empty.");
  t.equal(domainError('.example.com'), 'Domain cannot start or end with a dot (.)');
  t.equal(domainError('a..b'), "Consecutive '.' are not allowed.");
  t.equal(domainError('-a.com'), "Subdomains cannot start or end with a '-'.");
  t.equal(domainError('a_b.com'), "Domain can only have letters, numbers, '.' and '-'s.");
  t.equal(domainError(`${'a.'.repeat(130)}com`), 'Domain is too long');
  t.equal(domainError('mail.example.co.uk'), null);

  const { state, ctx, ids } = smallRealm();
  rejects(t, state, { type: 'add_realm_domain', actorId: ids.member, domain: 'a.org', allowSubdomains: false }, ctx, 'Must be an organization administrator');
  run(state, { type: 'add_realm_domain', actorId: ids.admin, domain: 'a.org', allowSubdomains: false }, ctx);
  run(state, { type: 'update_realm', actorId: ids.admin, settings: { emails_restricted_to_domains: true } }, ctx);
  t.ok(emailAllowedForRealm(state, 'X@A.ORG'), 'case-insensitive');
  t.notOk(emailAllowedForRealm(state, 'x@sub.a.org'), 'no subdomains unless allowed');
  t.notOk(emailAllowedForRealm(state, 'x@evila.org'), 'a suffix that is not a subdomain');
  const { core, columns } = toSnapshot(state);
  const copy = fromSnapshot(state.id, structuredClone(core), columns);
  t.equal(fingerprint(copy), fingerprint(state));
  t.notOk(emailAllowedForRealm(copy, 'x@b.org'), 'the restriction survives the snapshot');
});
