/**
 * `--external-url` → the organizations' URLs (realm/realm-urls.ts): root and subdomain URLs,
 * email host names, realm selection by Host, and the refusals of malformed URLs.
 */
import t from 'tap';
import { ExternalUrlError, RealmUrls } from '../../src/realm/realm-urls.js';

t.test('an https URL: root, subdomains, hosts', async (t) => {
  const urls = RealmUrls.parse('https://Chat.Example.com/');
  t.equal(urls.rootUrl, 'https://chat.example.com', 'lower-cased, no trailing slash');
  t.equal(urls.urlFor(''), 'https://chat.example.com');
  t.equal(urls.urlFor('team'), 'https://team.chat.example.com');
  t.equal(urls.hostFor(''), 'chat.example.com');
  t.equal(urls.hostFor('team'), 'team.chat.example.com');
  t.equal(RealmUrls.parse('https://chat.example.com:443').rootUrl, 'https://chat.example.com', 'default port dropped');
  const port = RealmUrls.parse('http://chat.example.com:8080');
  t.equal(port.urlFor('team'), 'http://team.chat.example.com:8080', 'the port is kept for subdomains');
  t.equal(port.hostFor('team'), 'team.chat.example.com', 'email host names carry no port');
});

t.test('realm selection by Host ignores the port and the scheme', async (t) => {
  const urls = RealmUrls.parse('https://chat.example.com');
  t.equal(urls.subdomainForHost('team.chat.example.com'), 'team');
  t.equal(urls.subdomainForHost('TEAM.chat.example.com:443'), 'team');
  t.equal(urls.subdomainForHost('www.chat.example.com'), '', 'www is the root');
  t.equal(urls.subdomainForHost('chat.example.com'), '');
  t.equal(urls.subdomainForHost('127.0.0.1:9991'), '', 'any other Host is the root');
  t.equal(urls.subdomainForHost('team.evil.com'), '');
  t.equal(urls.subdomainForHost('xchat.example.com'), '', 'a suffix without the dot is another host');
});

t.test('an IP URL (the default): subdomains live under localhost', async (t) => {
  const urls = RealmUrls.forServer({}, 9991);
  t.equal(urls.rootUrl, 'http://127.0.0.1:9991');
  t.equal(urls.urlFor('team'), 'http://team.localhost:9991');
  t.equal(urls.hostFor(''), 'localhost', 'generated emails stay user<id>@localhost');
  t.equal(urls.subdomainForHost('team.localhost:9991'), 'team');
  t.equal(urls.subdomainForHost('127.0.0.1:9991'), '');
  const v6 = RealmUrls.parse('http://[::1]:9991');
  t.equal(v6.rootUrl, 'http://[::1]:9991');
  t.equal(v6.urlFor('team'), 'http://team.localhost:9991');
});

t.test('forServer: --external-url wins, --external-host is http://H:<port>', async (t) => {
  t.equal(RealmUrls.forServer({ externalUrl: 'https://a.example', externalHost: 'b.example' }, 80).rootUrl, 'https://a.example');
  t.equal(RealmUrls.forServer({ externalHost: 'chat.acme.com' }, 9991).rootUrl, 'http://chat.acme.com:9991');
  t.equal(RealmUrls.forServer({ externalHost: 'chat.acme.com' }, 9991).urlFor('team'), 'http://team.chat.acme.com:9991');
  t.throws(() => RealmUrls.forServer({ externalHost: 'http://chat.acme.com' }, 1), { constructor: ExternalUrlError, message: /bare host name/ });
});

t.test('malformed URLs are refused with a message naming the problem', async (t) => {
  const cases: [string, RegExp][] = [
    ['chat.example.com', /absolute URL/],
    ['ftp://chat.example.com', /http:\/\/ or https:\/\//],
    ['https://user:pw@chat.example.com', /user name or password/],
    ['https://chat.example.com/zulip', /bare origin/],
    ['https://chat.example.com/?x=1', /bare origin/],
    ['https://chat.example.com/#top', /bare origin/],
    ['https://chat.example.com?', /bare origin/],
    ['', /absolute URL/],
  ];
  for (const [raw, message] of cases) {
    t.throws(() => RealmUrls.parse(raw), { message, constructor: ExternalUrlError }, raw);
  }
});
