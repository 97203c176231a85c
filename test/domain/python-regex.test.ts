/**
 * Python regex handling (domain/python-regex.ts): RE2 validation with Zulip's error wording,
 * the Python → JavaScript translation, and linear-time matching of pathological patterns
 * through `applyLinkifiers`.
 */
import t from 'tap';
import { checkRe2 } from '../../src/domain/python-regex.js';
import { applyLinkifiers, pythonRepr, uriTemplateVariables } from '../../src/domain/linkifiers.js';

t.test('checkRe2: accepted patterns and their named groups', async (t) => {
  const r = checkRe2('#(?P<id>[0-9]+)-(?P<name>\\w+)');
  t.ok(r.ok);
  if (r.ok) t.same(r.value.groupNames.sort(), ['id', 'name']);
  t.ok(checkRe2('(?i)ticket-[0-9]+').ok, 'leading inline flag');
  t.ok(checkRe2('(?i:abc)').ok, 'scoped flag (RE2 accepts it)');
  t.ok(checkRe2('(a+)+$').ok, 'nested quantifier is fine for RE2: matching is linear');
});

t.test('checkRe2: RE2 errors in C++ RE2 wording (as Zulip reports them)', async (t) => {
  const msg = (p: string) => { const r = checkRe2(p); return r.ok ? null : r.message; };
  t.equal(msg('(foo'), 'missing ): (foo');
  t.equal(msg('[a-'), 'missing ]: [a-');
  t.equal(msg('a**'), 'bad repetition operator: **');
  t.equal(msg('a++'), 'bad repetition operator: ++', 'possessive');
  t.equal(msg('(?>a)'), 'invalid perl operator: (?>', 'atomic group');
  t.equal(msg('(?P<a>x)(?P=a)'), 'invalid perl operator: (?P', 'named backreference');
  t.equal(msg('(?P<n>x)\\1'), 'invalid escape sequence: \\1', 'numbered backreference');
  t.match(msg('(?<=a)b'), /^invalid named capture group/, 'lookbehind (RE2 has none)');
  t.equal(msg('x{1001}'), 'bad repetition operator: {1001}', 'repetition over 1000');
  t.equal(msg('abc\\'), 'trailing \\');
});

t.test('uriTemplateVariables (RFC 6570) and pythonRepr', async (t) => {
  t.same(uriTemplateVariables('https://x.com/{id}'), ['id']);
  t.same(uriTemplateVariables('https://x.com/{+path}/{id}{?q,r*}{#frag:3}'), ['path', 'id', 'q', 'r', 'frag']);
  t.same(uriTemplateVariables('https://x.com/'), []);
  for (const bad of ['https://x.com/{id', 'https://x.com/id}', '{}', '{=id}', '{ id }', '{a{b}}', '{id:0}', '{.a.}', 'x y', 'https://x.com/%zz']) {
    t.equal(uriTemplateVariables(bad), null, bad);
  }
  t.equal(pythonRepr('id'), "'id'");
  t.equal(pythonRepr("it's"), '"it\'s"');
});

t.test('applyLinkifiers: order, boundaries, expansion, overlaps', async (t) => {
  const links = [
    { id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://trac.example.com/ticket/{id}' },
    { id: 2, pattern: '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/{org}/{repo}/pull/{id}' },
    { id: 3, pattern: 'RFC ?(?P<n>[0-9]+)', url_template: 'https://rfc-editor.org/rfc/rfc{n}.html' },
  ];
  const text = 'See #12, zulip/zulip#34 and (RFC 6570) x#5 #7a #8';
  const found = applyLinkifiers(text, links);
  t.same(found.map((f) => [f.text, f.url, f.linkifierId]), [
    ['#12', 'https://trac.example.com/ticket/12', 1],
    ['zulip/zulip#34', 'https://github.com/zulip/zulip/pull/34', 2],
    ['RFC 6570', 'https://rfc-editor.org/rfc/rfc6570.html', 3],
    ['#8', 'https://trac.example.com/ticket/8', 1],
  ], 'x#5 and #7a are not at word boundaries');
  for (const f of found) t.equal(text.slice(f.start, f.end), f.text);
  t.same(applyLinkifiers('#1 #2', links).map((f) => f.text), ['#1', '#2'], 'adjacent matches share a separator');
  t.same(applyLinkifiers('q=#1 ünï #2', [{ id: 9, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://x/{id}?t={id}' }]).map((f) => [f.start, f.url]), [[9, 'https://x/2?t=2']]);
  t.same(applyLinkifiers('ünï #2', links).map((f) => f.start), [4], 'UTF-16 offsets');
  t.same(applyLinkifiers('x/y#1', [{ id: 1, pattern: '(?P<a>x/y#1)', urlTemplate: 'https://h/{+a}' }, { id: 2, pattern: '#(?P<id>1)', urlTemplate: 'https://h/{id}' }]).map((f) => [f.linkifierId, f.url]), [[1, 'https://h/x/y#1']], 'earlier linkifier wins an overlap');
});

t.test('a pathological pattern cannot stall matching (RE2 is linear)', async (t) => {
  const evil = [{ id: 1, pattern: '(?P<x>(a+)+)b', urlTemplate: 'https://x/{x}' }];
  const text = 'a'.repeat(50_000) + '!';
  const started = process.hrtime.bigint();
  t.same(applyLinkifiers(text, evil), []);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  t.ok(ms < 2000, `took ${ms.toFixed(0)} ms`);
});
