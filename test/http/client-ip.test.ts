/**
 * Forwarded headers are believed only from `--trusted-proxies` (http/client-ip.ts): the CIDR
 * parser, the X-Forwarded-For walk, X-Forwarded-Proto, and the wiring through the real uWS server
 * into every request (`ApiRequest.remoteAddress` is the client, `peerAddress` the proxy, `scheme`).
 */
import t from 'tap';
import { clientIp, normalizeIp, requestScheme, TrustedProxies, TrustedProxiesError } from '../../src/http/client-ip.js';
import { startHttpServer } from '../../src/http/server.js';
import type { ApiRequest } from '../../src/api/registry.js';

const loopback = TrustedProxies.parse('127.0.0.0/8,::1');
const req = (remoteAddress: string, headers: Record<string, string> = {}) => ({ remoteAddress, headers });

t.test('TrustedProxies: CIDRs, single addresses, IPv4-mapped IPv6', async (t) => {
  const trusted = TrustedProxies.parse(' 10.0.0.0/8, 192.168.1.7  fd00::/8,::1 ');
  t.same(trusted.entries, ['10.0.0.0/8', '192.168.1.7/32', 'fd00::/8', '::1/128']);
  t.ok(trusted.has('10.200.3.4'));
  t.ok(trusted.has('::ffff:10.1.1.1'), 'IPv4-mapped IPv6 is the IPv4 address');
  t.ok(trusted.has('192.168.1.7'));
  t.notOk(trusted.has('192.168.1.8'));
  t.ok(trusted.has('fd12::1'));
  t.ok(trusted.has('::1'));
  t.notOk(trusted.has('127.0.0.1'));
  t.notOk(trusted.has('not-an-ip'));
  t.notOk(TrustedProxies.parse('').has('127.0.0.1'), 'empty = nobody');
  t.equal(normalizeIp('[::FFFF:1.2.3.4]'), '1.2.3.4');
  for (const bad of ['10.0.0.0/33', '::1/129', 'example.com', '10.0.0.0/8/1', '1.2.3.4/x', '300.1.1.1']) {
    t.throws(() => TrustedProxies.parse(bad), { constructor: TrustedProxiesError, message: new RegExp(`'${bad.replace(/[./]/g, '\\$&')}' is not an IP address or CIDR`) }, bad);
  }
});

t.test('TrustedProxies: answers stay right past the cache bound (4,096 peers)', async (t) => {
  const trusted = TrustedProxies.parse('10.0.0.0/8');
  const address = (i: number) => `${i % 2 === 0 ? 10 : 11}.0.${(i >> 8) & 255}.${i & 255}`;
  let wrong = 0;
  // Twice over 6,000 peers: the second pass asks about peers evicted in the first.
  for (let pass = 0; pass < 2; pass++) for (let i = 0; i < 6000; i++) if (trusted.has(address(i)) !== (i % 2 === 0)) wrong++;
  t.equal(wrong, 0);
  t.equal(trusted.has('10.0.0.0'), true);
  t.equal(trusted.has('11.0.0.1'), false);
});

t.test('clientIp: X-Forwarded-For only from a trusted peer, walked from the right', async (t) => {
  t.equal(clientIp(req('203.0.113.5', { 'x-forwarded-for': '1.2.3.4' }), loopback), '203.0.113.5', 'untrusted peer: header ignored');
  t.equal(clientIp(req('127.0.0.1'), loopback), '127.0.0.1', 'trusted peer without header: the peer');
  t.equal(clientIp(req('127.0.0.1', { 'x-forwarded-for': '198.51.100.7' }), loopback), '198.51.100.7');
  t.equal(clientIp(req('::ffff:127.0.0.1', { 'x-forwarded-for': '198.51.100.7' }), loopback), '198.51.100.7');
  t.equal(
    clientIp(req('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' }), loopback),
    '198.51.100.7',
    'a client-supplied entry left of the first untrusted hop is not believed',
  );
  const chain = TrustedProxies.parse('127.0.0.1,10.0.0.0/8');
  t.equal(clientIp(req('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.0.0.2' }), chain), '198.51.100.7', 'trusted hops are skipped');
  t.equal(clientIp(req('127.0.0.1', { 'x-forwarded-for': '10.0.0.3, 10.0.0.2' }), chain), '10.0.0.3', 'all trusted: the leftmost');
  t.equal(clientIp(req('127.0.0.1', { 'x-forwarded-for': 'garbage, 10.0.0.2' }), chain), '10.0.0.2', 'a malformed hop stops the walk');
  t.equal(clientIp(req('127.0.0.1', { 'x-forwarded-for': '2001:db8::1' }), loopback), '2001:db8::1');
  t.equal(clientIp(req('127.0.0.1', { 'x-forwarded-for': '1.2.3.4' }), TrustedProxies.parse('')), '127.0.0.1', 'nobody trusted');
});

t.test('requestScheme: X-Forwarded-Proto only from a trusted peer', async (t) => {
  t.equal(requestScheme(req('127.0.0.1', { 'x-forwarded-proto': 'https' }), loopback), 'https');
  t.equal(requestScheme(req('127.0.0.1', { 'x-forwarded-proto': 'HTTPS' }), loopback), 'https');
  t.equal(requestScheme(req('127.0.0.1', { 'x-forwarded-proto': 'https, http' }), loopback), 'http', 'the nearest proxy speaks last');
  t.equal(requestScheme(req('127.0.0.1'), loopback), 'http');
  t.equal(requestScheme(req('203.0.113.5', { 'x-forwarded-proto': 'https' }), loopback), 'http', 'untrusted peer: ignored');
});

t.test('the real server hands every request its client IP and scheme', async (t) => {
  const seen: ApiRequest[] = [];
  const start = async (trustedProxies: TrustedProxies) => {
    const server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      trustedProxies,
      dispatch: (r) => {
        seen.push(r);
        return { status: 200, body: { result: 'success', msg: '' } };
      },
    });
    t.teardown(() => server.close());
    return `http://127.0.0.1:${server.port}/api/v1/x`;
  };
  const headers = { 'X-Forwarded-For': '198.51.100.7', 'X-Forwarded-Proto': 'https' };
  const trusting = await start(loopback);
  t.equal((await fetch(trusting, { headers })).status, 200);
  t.match(seen.at(-1), { peerAddress: '127.0.0.1', remoteAddress: '198.51.100.7', scheme: 'https' }, 'loopback proxy believed');
  const distrusting = await start(TrustedProxies.parse('10.0.0.0/8'));
  t.equal((await fetch(distrusting, { headers })).status, 200);
  t.match(seen.at(-1), { peerAddress: '127.0.0.1', remoteAddress: '127.0.0.1', scheme: 'http' }, 'peer not in --trusted-proxies: headers ignored');
});

t.test("peerAddress is uWS's own text of the peer: IPv4, IPv4-mapped and IPv6, first and repeated requests", async (t) => {
  const seen: ApiRequest[] = [];
  const start = async (host: string) => {
    const server = await startHttpServer({
      host,
      port: 0,
      dispatch: (r) => {
        seen.push(r);
        return { status: 200, body: { result: 'success', msg: '' } };
      },
    });
    t.teardown(() => server.close());
    return server.port;
  };
  /** The peer text of three requests from `from` (the first fills peer-address.ts's table, the others read it). */
  const peers = async (port: number, from: string) => {
    const texts: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.equal((await fetch(`http://${from}:${port}/api/v1/x`)).status, 200);
      texts.push(seen.at(-1)!.peerAddress!);
    }
    return texts;
  };
  const v4 = await start('127.0.0.1');
  t.same(await peers(v4, '127.0.0.1'), ['127.0.0.1', '127.0.0.1', '127.0.0.1'], 'IPv4 listener: dotted');
  let dual: number;
  try {
    dual = await start('::');
  } catch {
    t.skip('IPv6 forms: no IPv6 on this machine', () => {});
    return;
  }
  const mapped = '0000:0000:0000:0000:0000:ffff:7f00:0001';
  t.same(await peers(dual, '127.0.0.1'), [mapped, mapped, mapped], 'IPv4 on a dual-stack listener: IPv4-mapped, uncompressed');
  t.equal(seen.at(-1)!.remoteAddress, mapped, 'and the client address, with nobody trusted');
  const loopback6 = '0000:0000:0000:0000:0000:0000:0000:0001';
  t.same(await peers(dual, '[::1]'), [loopback6, loopback6, loopback6], '::1, uncompressed');
  t.same(await peers(v4, '127.0.0.1'), ['127.0.0.1', '127.0.0.1', '127.0.0.1'], 'the IPv4 text is not taken for the mapped form');
});
