/**
 * form-urlencoded.ts must give exactly the pairs of `[...new URLSearchParams(raw)]` (the WHATWG
 * parser it replaces on the request path): fixed edge cases, then 20,000 random strings built from
 * the characters that matter (`& = + %`, hex digits, percent-encoded valid and invalid UTF-8,
 * non-ASCII, lone surrogates).
 */
import t from 'tap';
import { parseFormUrlencoded } from '../../src/http/form-urlencoded.js';
import { prng } from '../../bench/prng.js';

const reference = (raw: string): [string, string][] => [...new URLSearchParams(raw)];

t.test('edge cases', async (t) => {
  const cases = [
    '', '&', '&&', '=', '==', 'a', 'a=', '=b', 'a=b=c', 'a&b', '&a=1&&b=2&', 'a+b=c+d', '+=+',
    'x=%', 'x=%2', 'x=%zz', 'x=%41%42', 'x=%2B', 'x=%26%3D', '%61=1', 'x=%e2%82%ac', 'x=%E2%82',
    'x=%C0%80', 'x=%ED%A0%80', 'x=%F4%90%80%80', 'x=%EF%BB%BFa', 'x=€ü', 'x=\uD800', 'x=\uDC00y',
    'x=a%%41', 'x=%%', '?a=1', '??a=1', '?', 'to=Verona&topic=bench&content=bench+message+1',
    'queue_id=3383de89%3A0&last_event_id=-1&x=a+b&flag',
  ];
  for (const raw of cases) t.strictSame(parseFormUrlencoded(raw), reference(raw), JSON.stringify(raw));
});

t.test('random strings agree with URLSearchParams', async (t) => {
  const random = prng(17);
  const pieces = ['&', '=', '+', '%', '%2', '%41', '%2B', '%26', '%3D', '%e2%82%ac', '%E2%82', '%C3', '%A9', '%ED%A0%80', '%F0%9F%98%80', 'a', 'Z', '0', 'f', ' ', 'é', '€', '😀', '\uD83D', '\uDE00', '?', '#'];
  let mismatches = 0;
  for (let i = 0; i < 20_000; i++) {
    let raw = '';
    const length = Math.floor(random() * 16);
    for (let j = 0; j < length; j++) raw += pieces[Math.floor(random() * pieces.length)];
    const got = parseFormUrlencoded(raw);
    const want = reference(raw);
    if (JSON.stringify(got) !== JSON.stringify(want)) {
      if (mismatches++ < 5) t.strictSame(got, want, JSON.stringify(raw));
    }
  }
  t.equal(mismatches, 0, 'no string parses differently');
});
