/**
 * Authorization header parsing (https://zulip.com/api/http-headers): exact error bodies and statuses.
 */
import t from 'tap';
import { parseBasicAuth } from '../../src/auth/basic-auth.js';
import { ZulipError } from '../../src/errors.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

const invalid = {
  status: 401,
  headers: { 'WWW-Authenticate': 'Basic realm="zulip"' },
  body: { result: 'error', msg: 'Invalid authorization header for basic auth', code: 'UNAUTHORIZED' },
};
const wire = (r: unknown) => (r instanceof ZulipError ? { status: r.status, headers: r.headers, body: r.toBody() } : r);

t.test('absent header → null', async (t) => {
  t.equal(parseBasicAuth(undefined), null);
});

t.test('well-formed credentials, whitespace stripped', async (t) => {
  t.strictSame(parseBasicAuth(`Basic ${b64('iago@zulip.com:abcdefghijklmnopqrstuvwxyz012345')}`), {
    email: 'iago@zulip.com',
    apiKey: 'abcdefghijklmnopqrstuvwxyz012345',
  });
  t.strictSame(parseBasicAuth(`basic ${b64(' a@b.c \t: key ')}`), { email: 'a@b.c', apiKey: 'key' }, 'scheme any case');
  t.strictSame(parseBasicAuth(`  BASIC   ${b64('a@b.c:k')}  `), { email: 'a@b.c', apiKey: 'k' }, 'extra spaces');
  t.strictSame(parseBasicAuth(`Basic ${b64('é@b.c:k')}`), { email: 'é@b.c', apiKey: 'k' }, 'UTF-8');
  t.strictSame(parseBasicAuth(`Basic ${b64('a@b.c:')}`), { email: 'a@b.c', apiKey: '' }, 'empty key is parsed');
});

t.test('not two tokens → 401 invalid header', async (t) => {
  t.strictSame(wire(parseBasicAuth('')), invalid);
  t.strictSame(wire(parseBasicAuth('Basic')), invalid);
  t.strictSame(wire(parseBasicAuth(`Basic ${b64('a:b')} extra`)), invalid);
});

t.test('other scheme → 400 BAD_REQUEST', async (t) => {
  t.strictSame(wire(parseBasicAuth('Bearer abcdef')), {
    status: 400,
    headers: {},
    body: { result: 'error', msg: 'This endpoint requires HTTP basic authentication.', code: 'BAD_REQUEST' },
  });
});

t.test('bad credentials → 401 invalid header', async (t) => {
  t.strictSame(wire(parseBasicAuth(`Basic ${b64('no-colon')}`)), invalid, 'no colon');
  t.strictSame(wire(parseBasicAuth(`Basic ${b64('a:b:c')}`)), invalid, 'two colons');
  t.strictSame(wire(parseBasicAuth('Basic YQ')), invalid, 'missing padding');
  t.strictSame(wire(parseBasicAuth('Basic Y')), invalid, 'impossible length');
  t.strictSame(wire(parseBasicAuth(`Basic ${Buffer.from([0xff, 0x3a, 0x61]).toString('base64')}`)), invalid, 'not UTF-8');
});
